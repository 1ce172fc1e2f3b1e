"""Clock arithmetic (service/bummerl/core/clocks.py, docs/DESIGN.md §5; docs/RULES.md SRV-5 leaves time limits to
the server). Pure: no Redis, no sleeping."""

from __future__ import annotations

import json

import pytest

from bummerl.core.clocks import Clocks, TimeControl, TimeControlError


@pytest.mark.parametrize(
    ("text", "base", "inc", "cap", "lag", "scope"),
    [
        ("5+0.1", 5000, 100, 0, 0, "match"),
        ("5", 5000, 0, 0, 0, "match"),
        ("move=2", 0, 0, 2000, 0, "match"),
        ("60+1,move=5", 60000, 1000, 5000, 0, "match"),
        ("1+0, lag=0.05, scope=deal", 1000, 0, 0, 50, "deal"),
    ],
)
def test_time_control_text_form_in_seconds(text: str, base: int, inc: int, cap: int, lag: int, scope: str) -> None:
    tc = TimeControl.parse(text)
    assert (tc.base_ms, tc.increment_ms, tc.move_cap_ms, tc.lag_compensation_ms, tc.scope) == (base, inc, cap, lag, scope)
    assert TimeControl.parse(str(tc)) == tc
    assert TimeControl.from_dict(tc.to_dict()) == tc


@pytest.mark.parametrize(
    ("text", "needle"),
    [("", "empty"), ("5+x", "5+x"), ("move=-1", "move=-1"), ("0+0", "base_ms > 0 or move_cap_ms"),
     ("scope=week,5", "scope"), ("1e9", "1e9"), ("999999999", "at most")],
)
def test_time_control_rejects_bad_text_naming_the_part(text: str, needle: str) -> None:
    with pytest.raises(TimeControlError, match=None) as e:
        TimeControl.parse(text)
    assert needle in str(e.value)


def test_time_control_from_dict_validates_and_treats_all_zero_as_no_clock() -> None:
    assert TimeControl.from_dict(None) is None
    assert TimeControl.from_dict({"base_ms": 0, "increment_ms": 0, "move_cap_ms": 0, "scope": ""}) is None
    with pytest.raises(TimeControlError, match="base_ms"):
        TimeControl.from_dict({"base_ms": -5, "move_cap_ms": 10})
    with pytest.raises(TimeControlError, match="base_ms > 0"):
        TimeControl.from_dict({"increment_ms": 100})
    with pytest.raises(TimeControlError, match="scope"):
        TimeControl.from_dict({"base_ms": 100, "scope": "hour"})


def test_clock_starts_at_commit_and_charges_the_time_used_plus_increment() -> None:
    c = Clocks.start(TimeControl(base_ms=10_000, increment_ms=500), num_seats=2, seat=1, now_ms=100)
    assert (c.seat, c.turn_start_ms, c.deadline_ms) == (1, 100, 10_100)
    assert c.view(2_100) == [
        {"seat": 0, "remaining_ms": 10_000, "running": False, "move_remaining_ms": 0, "bank_ms": 0},
        {"seat": 1, "remaining_ms": 8_000, "running": True, "move_remaining_ms": 8_000, "bank_ms": 0},
    ]
    c = c.after_action(seat=1, now_ms=3_100, next_seat=0, deal_changed=False)
    assert c.remaining_ms == [10_000, 7_500]
    assert (c.seat, c.turn_start_ms, c.deadline_ms) == (0, 3_100, 13_100)


def test_deadline_is_inclusive_and_late_by_one_ms_is_expired() -> None:
    c = Clocks.start(TimeControl(base_ms=1_000), 2, 0, now_ms=0)
    assert not c.expired(1_000)
    assert c.expired(1_001)
    assert c.view(5_000)[0]["remaining_ms"] == 0


def test_move_cap_limits_one_action_but_not_the_main_time() -> None:
    c = Clocks.start(TimeControl(base_ms=60_000, move_cap_ms=2_000), 2, 0, now_ms=0)
    assert c.deadline_ms == 2_000
    assert c.view(500)[0] == {"seat": 0, "remaining_ms": 59_500, "running": True, "move_remaining_ms": 1_500, "bank_ms": 0}
    c = c.after_action(0, 1_500, 1, False)
    assert c.remaining_ms[0] == 58_500


def test_fixed_time_per_move_without_main_clock() -> None:
    c = Clocks.start(TimeControl(move_cap_ms=2_000), 2, 0, now_ms=0)
    assert c.deadline_ms == 2_000
    c = c.after_action(0, 1_900, 1, False)
    assert c.remaining_ms == [0, 0]
    assert c.deadline_ms == 3_900  # a fresh 2 s for the next move
    assert c.view(2_900)[1] == {"seat": 1, "remaining_ms": 1_000, "running": True, "move_remaining_ms": 1_000, "bank_ms": 0}
    assert c.view(2_900)[0]["remaining_ms"] == 2_000


def test_lag_compensation_is_not_charged_and_extends_the_deadline() -> None:
    c = Clocks.start(TimeControl(base_ms=1_000, lag_compensation_ms=100), 2, 0, now_ms=0)
    assert c.deadline_ms == 1_100
    assert c.charged_ms(80) == 0
    c = c.after_action(0, 300, 1, False)
    assert c.remaining_ms[0] == 800


def test_scope_deal_resets_every_main_time_when_a_deal_starts() -> None:
    c = Clocks.start(TimeControl(base_ms=5_000, scope="deal"), 2, 0, now_ms=0)
    c = c.after_action(0, 4_000, 1, deal_changed=False)
    assert c.remaining_ms == [1_000, 5_000]
    c = c.after_action(1, 6_000, 0, deal_changed=True)
    assert c.remaining_ms == [5_000, 5_000]
    m = Clocks.start(TimeControl(base_ms=5_000), 2, 0, now_ms=0).after_action(0, 4_000, 1, deal_changed=True)
    assert m.remaining_ms == [1_000, 5_000]  # scope match keeps the clocks


def test_refill_sets_the_seat_back_to_base_for_forfeit_deal() -> None:
    c = Clocks.start(TimeControl(base_ms=1_000), 2, 0, now_ms=0)
    c = c.after_action(0, 5_000, 1, deal_changed=True, refill=True)
    assert c.remaining_ms == [1_000, 1_000]


def test_no_running_clock_once_the_match_is_over() -> None:
    c = Clocks.start(TimeControl(base_ms=1_000), 2, 0, 0).after_action(0, 10, -1, False)
    assert (c.seat, c.deadline_ms) == (-1, -1)
    assert not c.expired(10**12)
    assert Clocks.from_dict(c.tc, c.to_dict()) == c


def test_overage_bank_pays_the_time_beyond_each_move_and_is_never_reset() -> None:
    """Kaggle's remainingOverageTime: move=2,bank=30 - a move may take longer than 2 s, the excess
    comes out of the seat's bank for the whole match; the deadline is the move's 2 s plus the bank."""
    tc = TimeControl.parse("move=2,bank=30,scope=deal")
    assert (tc.move_cap_ms, tc.bank_ms) == (2_000, 30_000) and str(tc) == "move=2,bank=30,scope=deal"
    assert TimeControl.from_dict(tc.to_dict()) == tc and "bank_ms" not in TimeControl.parse("move=2").to_dict()
    c = Clocks.start(tc, num_seats=2, seat=0, now_ms=0)
    assert c.deadline_ms == 32_000
    view = c.view(5_000)[0]  # 3 s into the bank
    assert view["move_remaining_ms"] == 0 and view["bank_ms"] == 27_000 and view["running"]
    assert c.view(1_500)[0]["move_remaining_ms"] == 500 and c.view(1_500)[0]["bank_ms"] == 30_000
    c = c.after_action(seat=0, now_ms=5_000, next_seat=1, deal_changed=True)  # a new deal: the bank stays
    assert c.bank_ms == [27_000, 30_000] and c.deadline_ms == 5_000 + 2_000 + 30_000
    c = c.after_action(seat=1, now_ms=6_000, next_seat=0, deal_changed=False)  # within its 2 s: bank intact
    assert c.bank_ms == [27_000, 30_000] and c.deadline_ms == 6_000 + 2_000 + 27_000
    assert not c.expired(35_000) and c.expired(35_001)
    again = Clocks.from_dict(tc, json.loads(json.dumps(c.to_dict())))
    assert again == c
    old = Clocks.from_dict(tc, {"remaining_ms": [0, 0], "seat": 0, "turn_start_ms": 0, "deadline_ms": 1})
    assert old.bank_ms == [30_000, 30_000]  # clocks stored before the bank existed get a full one


def test_bank_with_a_main_clock_draws_only_once_the_main_time_is_gone() -> None:
    tc = TimeControl.parse("10+0,bank=5")
    c = Clocks.start(tc, num_seats=2, seat=0, now_ms=0)
    assert c.deadline_ms == 15_000
    c = c.after_action(seat=0, now_ms=12_000, next_seat=1, deal_changed=False)
    assert c.remaining_ms == [0, 10_000] and c.bank_ms == [3_000, 5_000]
    c = c.after_action(seat=1, now_ms=13_000, next_seat=0, deal_changed=False)
    assert c.deadline_ms == 13_000 + 0 + 3_000  # main time gone: only the bank left
