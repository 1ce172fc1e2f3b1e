"""The bummerl.v1 proto and the codec between engine dicts and messages."""

from __future__ import annotations

import copy
import random

import pytest
from google.api import annotations_pb2

from bummerl.api import codec
from bummerl.api.codec import CodecError
from bummerl.v1 import common_pb2, game_pb2, game_pb2_grpc, ladder_pb2, ladder_pb2_grpc

EVENTS = [
    {"type": "deal", "version": 1, "deal_number": 3, "dealer": 1, "trump_card": "JH", "trump_suit": "H",
     "hand_sizes": [5, 5]},
    {"type": "exchange", "version": 2, "deal_number": 3, "seat": 0, "card_down": "JH", "card_up": "QH"},
    {"type": "close", "version": 3, "deal_number": 3, "seat": 0},
    {"type": "pass", "version": 3, "deal_number": 3, "seat": 0},
    {"type": "marriage", "version": 4, "deal_number": 3, "seat": 0, "suit": "H", "points": 40,
     "shown_cards": ["KH", "QH"]},
    {"type": "play", "version": 4, "deal_number": 3, "seat": 0, "card": "KH"},
    {"type": "trick", "version": 5, "deal_number": 3, "winner": 0,
     "cards": [{"seat": 0, "card": "KH"}, {"seat": 1, "card": "9H"}]},
    {"type": "draw", "version": 5, "deal_number": 3, "seat": 0, "card": ""},
    {"type": "draw", "version": 5, "deal_number": 3, "seat": 1, "card": "JH"},
    {"type": "declare", "version": 6, "deal_number": 3, "seat": 0, "correct": True, "deal_points": 67},
    {"type": "resign", "version": 7, "deal_number": 3, "seat": 1},
    {"type": "timeout", "version": 7, "deal_number": 3, "seat": 1, "reason": "TIMEOUT"},
    {"type": "bid", "version": 8, "deal_number": 4, "seat": 2, "call": "schnapser"},
    {"type": "contract", "version": 8, "deal_number": 4, "name": "schnapser", "declarer": 2, "partners": [],
     "trump_suit": "S", "kontra_level": 1, "base_points": 6},
]

DEAL_RESULT = {"deal_number": 2, "winner": 1, "game_points": [0, 2], "reason": "closed_failure",
               "deal_points": [41, 70], "tricks_won": [2, 4], "schwarz": False, "deal_schneider": False,
               "carried_points": 0, "contract": "", "declarer": -1, "multiplier": 1, "seats": [0, 1],
               "playoff": False}
MATCH_RESULT = {"winner": 0, "game_points": [7, 3], "sets_won": [1, 0], "match_schneider": False,
                "reason": "target_reached", "placements": [1, 2]}

INFOSET = {
    "match_id": "m-1", "version": 12, "variant": "snaps-obican", "seat": 1, "num_seats": 2,
    "team_of_seat": [0, 1],
    "options": {"marriage_first_trick": "true", "dealer_rotation": "winner"},
    "match": {"game_points": [0, 3], "target": 7, "direction": "up", "sets_won": [0, 0], "set_target": 7,
              "sets_to_win": 1, "carried_points": 0, "deal_number": 3, "dealer": 1, "over": False, "winner": -1,
              "deals": [DEAL_RESULT], "placements": [], "playoff": False},
    "deal": {"phase": "follow", "to_act": 1, "leader": 0, "trump_suit": "H", "trump_card": "JH", "talon_size": 8,
             "talon_state": "open", "closed_by": -1, "trick_number": 3, "hand": ["AH", "TS"],
             "hand_sizes": [5, 5], "tricks_won": [2, 1], "current_trick": [{"seat": 0, "card": "AH"}],
             "history": EVENTS[:3] + EVENTS[4:8],
             "marriages": [{"seat": 0, "suit": "H", "points": 40, "counted": True}],
             "own_trick_points": 33, "own_won_cards": ["AS", "TS", "KD"], "own_deal_points": 53,
             "seats": [0, 1], "laid_away": []},
    "legal_actions": [{"id": 3, "text": "play QH", "kind": "play", "card": "QH", "suit": "", "contract": ""}],
    "clocks": [{"seat": 0, "remaining_ms": 1200, "running": False, "move_remaining_ms": 0},
               {"seat": 1, "remaining_ms": 900, "running": True, "move_remaining_ms": 900}],
}

VARIANT = {
    "id": "schnapsen-at", "aliases": ["schnapsen"], "name": "Schnapsen", "num_players": 2,
    "description": "Austrian two-player Schnapsen", "section": "§2",
    "deck": [{"id": 0, "code": "AC", "suit": "C", "rank": "A", "points": 11,
              "local_names": {"en": "ace of clubs", "de": "Eichel-Daus"}}],
    "options": [
        {"name": "close_before_first_trick", "type": "bool", "default": True, "allowed": [False, True],
         "description": "closing allowed before trick 1", "rule_ids": ["OPEN-AT-4"], "minimum": None,
         "maximum": None},
        {"name": "target", "type": "int", "default": 7, "allowed": [], "description": "match target",
         "rule_ids": [], "minimum": 1, "maximum": 33},
    ],
}


def test_generated_modules_import() -> None:
    assert game_pb2.DESCRIPTOR.services_by_name["GameService"].full_name == "bummerl.v1.GameService"
    assert hasattr(game_pb2_grpc, "GameServiceServicer") and hasattr(ladder_pb2_grpc, "LadderServiceServicer")
    assert common_pb2.Phase.Value("PHASE_BIDDING") > 0


@pytest.mark.parametrize("module", [game_pb2, ladder_pb2], ids=["game", "ladder"])
def test_every_rpc_has_an_http_annotation(module) -> None:
    for service in module.DESCRIPTOR.services_by_name.values():
        for method in service.methods:
            rule = method.GetOptions().Extensions[annotations_pb2.http]
            assert rule.WhichOneof("pattern") in ("get", "post", "put", "delete", "patch"), method.full_name
            path = getattr(rule, rule.WhichOneof("pattern"))
            assert path.startswith("/v1/"), method.full_name


def test_game_service_rpcs() -> None:
    service = game_pb2.DESCRIPTOR.services_by_name["GameService"]
    names = {m.name: m for m in service.methods}
    assert set(names) == {"ListVariants", "CreateMatch", "GetInformationSet", "SubmitAction", "StreamMatch",
                          "Resign", "GetMatchRecord"}
    assert names["StreamMatch"].server_streaming and not names["SubmitAction"].server_streaming


def test_information_set_round_trip() -> None:
    pb = codec.information_set_to_pb(INFOSET)
    assert pb.deal.phase == common_pb2.PHASE_FOLLOW
    assert pb.deal.talon_state == common_pb2.TALON_STATE_OPEN
    assert pb.match.direction == common_pb2.SCORE_DIRECTION_UP
    assert pb.deal.HasField("own_tricks") and pb.deal.own_tricks.deal_points == 53
    assert pb.deal.history[2].WhichOneof("kind") == "talon_closed"
    assert not pb.deal.HasField("auction")
    assert codec.information_set_to_dict(pb) == INFOSET
    again = common_pb2.InformationSet.FromString(pb.SerializeToString())
    assert again == pb


def test_own_tricks_unset_where_the_variant_hides_them() -> None:
    """docs/RULES.md §14.2: without own_* keys no OwnTricks is sent at all (not even zeros)."""
    d = copy.deepcopy(INFOSET)
    for key in ("own_trick_points", "own_won_cards", "own_deal_points"):
        del d["deal"][key]
    pb = codec.information_set_to_pb(d)
    assert not pb.deal.HasField("own_tricks")
    assert "own_tricks" not in codec.to_json_dict(pb)["deal"]
    assert codec.information_set_to_dict(pb) == d


@pytest.mark.parametrize("event", EVENTS, ids=lambda e: e["type"])
def test_event_round_trip(event) -> None:
    pb = codec.event_to_pb(event)
    assert pb.WhichOneof("kind") == codec.EVENT_KINDS[event["type"]]
    assert codec.event_to_dict(pb) == event


def test_result_events_nested_and_inline() -> None:
    nested = {"type": "deal_end", "version": 9, "deal_number": 2, "result": DEAL_RESULT}
    inline = {"type": "deal_end", "version": 9, **DEAL_RESULT}
    assert codec.event_to_pb(nested) == codec.event_to_pb(inline)
    assert codec.event_to_dict(codec.event_to_pb(nested)) == nested
    match_end = {"type": "match_end", "version": 9, "deal_number": 2, "result": MATCH_RESULT}
    assert codec.event_to_dict(codec.event_to_pb(match_end)) == match_end


def test_results() -> None:
    assert codec.pb_to_dict(codec.deal_result_to_pb(DEAL_RESULT)) == DEAL_RESULT
    assert codec.pb_to_dict(codec.match_result_to_pb(MATCH_RESULT)) == MATCH_RESULT


def test_variant_info() -> None:
    pb = codec.variant_info_to_pb(VARIANT)
    bool_opt, int_opt = pb.options
    assert (bool_opt.default_value, list(bool_opt.allowed_values)) == ("true", ["false", "true"])
    assert not bool_opt.HasField("minimum") and (int_opt.minimum, int_opt.maximum) == (1, 33)
    assert pb.deck[0].local_names["de"] == "Eichel-Daus"
    back = codec.variant_info_to_dict(pb)
    assert back["options"][1]["default"] == "7" and "minimum" not in back["options"][0]


def test_json_form_for_rest() -> None:
    j = codec.to_json_dict(codec.information_set_to_pb(INFOSET))
    assert j["version"] == "12"  # proto3 JSON: int64 as string
    assert j["deal"]["phase"] == "PHASE_FOLLOW"
    assert j["deal"]["to_act"] == 1 and j["deal"]["closed_by"] == -1
    assert j["deal"]["history"][0]["deal_started"]["trump_card"] == "JH"


@pytest.mark.parametrize(
    ("mutate", "where"),
    [
        (lambda d: d.update(bogus=1), "bogus"),
        (lambda d: d["match"].update(my_points=12), "my_points"),
        (lambda d: d["deal"].update(opponent_hand=["AS"]), "opponent_hand"),
        (lambda d: d["deal"]["history"][0].update(extra=1), "extra"),
        (lambda d: d["deal"]["history"].append({"type": "teleport", "seat": 0}), "teleport"),
        (lambda d: d["deal"]["history"].append({"seat": 0}), "type"),
        (lambda d: d["legal_actions"][0].update(score=1), "score"),
        (lambda d: d["deal"].update(phase="dancing"), "dancing"),
        (lambda d: d["deal"].update(to_act="1"), "to_act"),
        (lambda d: d["deal"].update(hand="AH"), "hand"),
        (lambda d: d["match"]["deals"][0].update(winner=True), "winner"),
        # int and string fields are set without our own check (protobuf's is as strict): still refused
        (lambda d: d.update(seat=1.5), "seat"),
        (lambda d: d.update(variant=5), "variant"),
        (lambda d: d.update(team_of_seat=[True, 1]), "team_of_seat"),
        (lambda d: d.update(team_of_seat=["0", "1"]), "team_of_seat"),
        (lambda d: d.update(team_of_seat=7), "team_of_seat"),
        # the options map is encoded once per table (cached): a bad value is still refused
        (lambda d: d["options"].update(match_target=None.__class__), "option value"),
        (lambda d: d["options"].update(match_target=[7]), "option value|list"),
        (lambda d: d.update(options=["match_target"]), "options"),
    ],
)
def test_codec_rejects_mismatches(mutate, where) -> None:
    d = copy.deepcopy(INFOSET)
    mutate(d)
    for _ in range(2):  # twice: a refusal is never cached
        with pytest.raises(CodecError, match=where):
            codec.information_set_to_pb(d)


def test_codec_rejects_unknown_keys_elsewhere() -> None:
    with pytest.raises(CodecError, match="bogus"):
        codec.variant_info_to_pb({**VARIANT, "bogus": 1})
    with pytest.raises(CodecError, match="bogus"):
        codec.deal_result_to_pb({**DEAL_RESULT, "bogus": 1})
    with pytest.raises(CodecError, match="bogus"):
        codec.event_to_pb({"type": "deal_end", "result": {**DEAL_RESULT, "bogus": 1}})
    with pytest.raises(CodecError, match="Event"):
        codec.event_to_pb({"seat": 0})


def test_dict_to_pb_generic() -> None:
    summary = codec.dict_to_pb(
        {"match_id": "m", "variant": "santase", "options": {"x": True, "n": 3}, "seats": [{"seat": 0, "name": "a"}],
         "version": 0, "time_control": None},
        game_pb2.MatchSummary,
    )
    assert dict(summary.options) == {"x": "true", "n": "3"}
    assert not summary.HasField("time_control")


# --- against the real engine --------------------------------------------------------------------

rules = pytest.importorskip("bummerl.rules")


@pytest.mark.parametrize("variant", [v.id for v in rules.list_variants()])
def test_codec_accepts_the_engine_shapes(variant: str) -> None:
    """Every information set and event the engine produces in random matches converts without a
    mismatch and round-trips; the variant dict converts too."""
    codec.variant_info_to_pb(rules.find_variant(variant).to_dict())
    rng = random.Random(7)
    for seed in range(3):
        m = rules.new_match(variant, seed=seed)
        steps = 0
        while not m.over and steps < 400:
            acts = rules.legal_actions(m)
            nxt = rules.apply(m, rng.choice(acts))
            for event in rules.events_between(m, nxt):
                assert codec.event_to_dict(codec.event_to_pb(event))["type"] == event["type"]
            m, steps = nxt, steps + 1
            for seat in (0, 1):
                d = rules.information_set(m, seat)
                pb = codec.information_set_to_pb(d)
                back = codec.information_set_to_dict(pb)
                assert back["deal"]["hand"] == d["deal"]["hand"]
                assert back["legal_actions"] == d["legal_actions"]
                assert back["match"] == d["match"]


# --- the fast path of information_set_to_pb (memo of events, results, legal actions) ------------


@pytest.mark.parametrize("variant", [v.id for v in rules.list_variants()])
def test_fast_information_set_is_byte_identical_to_the_generic_walk(variant: str) -> None:
    """A few hundred information sets of random matches of every variant, every seat: the fast
    path (memoized fragments) gives the very bytes of the generic per-field walk."""
    rng = random.Random(11)
    checked = 0
    seed = 0
    while checked < 400 and seed < 40:  # short matches (a Kontrabauernschnapser ends one) need more seeds
        m = rules.new_match(variant, seed=seed)
        seed += 1
        while not m.over and checked < 400:
            m = rules.apply(m, rng.choice(rules.legal_actions(m)))
            for seat in range(m.num_seats):
                d = {**rules.information_set(m, seat), "match_id": "m", "version": checked}
                fast = codec.information_set_to_pb(d).SerializeToString()
                assert fast == codec.information_set_to_pb_generic(d).SerializeToString()
                checked += 1
    assert checked >= 100


def test_fast_path_covers_unknown_event_kinds_through_the_generic_walk() -> None:
    """The fast path knows no event kind: every kind the codec knows (bids and contracts too)
    comes out as the generic walk makes it, memoized or not, and in order."""
    d = copy.deepcopy(INFOSET)
    d["deal"]["history"] = [{k: v for k, v in e.items() if k != "version"} for e in EVENTS]
    for _ in range(2):  # the second time from the memo
        assert codec.information_set_to_pb(d) == codec.information_set_to_pb_generic(d)
    kinds = [e.WhichOneof("kind") for e in codec.information_set_to_pb(d).deal.history]
    assert kinds == [codec.EVENT_KINDS[e["type"]] for e in EVENTS]


@pytest.mark.parametrize(
    ("mutate", "where"),
    [
        (lambda d: d["deal"]["history"][1].update(seat=True), "seat"),  # True == 1, but a bool
        (lambda d: d["deal"]["history"][1].update(seat=0.0), "seat"),  # 0.0 == 0, but a float
        (lambda d: d["deal"]["history"][5]["cards"][0].update(seat=False), "seat"),
        (lambda d: d["deal"]["history"][5].update(cards=({"seat": 0, "card": "KH"}, 7)), "cards"),
        (lambda d: d["match"]["deals"][0].update(game_points=(False, True)), "game_points"),
        (lambda d: d["match"]["deals"][0].update(schwarz=0), "schwarz"),
        (lambda d: d["legal_actions"][0].update(id=3.0), "id"),
        (lambda d: d["legal_actions"][0].update(kind=("play",)), "kind"),
    ],
)
def test_memo_never_accepts_a_wrong_type_equal_to_a_valid_value(mutate, where) -> None:
    """The memo keys by value *and* exact type: after the valid dict is encoded (and memoized),
    a dict whose values are equal but of a wrong type (True for 1, 0.0 for 0) is still refused,
    with the generic walk's message."""
    codec.information_set_to_pb(INFOSET)
    d = copy.deepcopy(INFOSET)
    mutate(d)
    with pytest.raises(CodecError, match=where) as fast:
        codec.information_set_to_pb(d)
    with pytest.raises(CodecError) as generic:
        codec.information_set_to_pb_generic(d)
    assert str(fast.value) == str(generic.value)


def test_direct_builder_covers_the_known_fields_and_matches_the_generic_walk() -> None:
    """The hand-made fixture (clocks, time control, own tricks, marriages, current trick, every
    event kind) goes through the direct builder (no fallback) and gives the generic walk's bytes;
    an unknown field (one added for 3-4 player games, say) falls back to the generic walk."""
    d = copy.deepcopy(INFOSET)
    d["time_control"] = {"base_ms": 60000, "increment_ms": 1000, "move_cap_ms": 0, "lag_compensation_ms": 50,
                         "scope": "match"}
    d["deal"]["history"] = [{k: v for k, v in e.items() if k != "version"} for e in EVENTS]
    fast = codec._information_set_fast(d)  # raises if it fell back
    assert fast.SerializeToString() == codec.information_set_to_pb_generic(d).SerializeToString()
    d["deal"]["auction"] = {"bids": [{"seat": 0, "call": "pass"}]}
    with pytest.raises(CodecError):
        codec._information_set_fast(d)
    assert codec.information_set_to_pb(d) == codec.information_set_to_pb_generic(d)
    assert codec.information_set_to_pb(d).deal.auction.bids[0].call == "pass"


@pytest.mark.parametrize("variant", [v.id for v in rules.list_variants() if v.num_players == 2])
def test_direct_builder_covers_the_two_player_engine_shapes(variant: str) -> None:
    """A performance guard, not a rule: the information sets of the 2-player variants take the
    direct builder. If this fails after a field was added to them, add the field to the builder's
    tables in bummerl.api.codec (_TOP_FIELDS, _MATCH_FIELDS, _DEAL_FIELDS, ...)."""
    rng = random.Random(5)
    m = rules.new_match(variant, seed=1)
    for _ in range(60):
        if m.over:
            break
        m = rules.apply(m, rng.choice(rules.legal_actions(m)))
        for seat in (0, 1):
            codec._information_set_fast({**rules.information_set(m, seat), "match_id": "m", "version": 3})
