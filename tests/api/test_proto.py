"""The bummerl.v1 proto and the codec between engine dicts and messages."""

from __future__ import annotations

import copy
import functools
import random
import typing
from typing import Any

import pytest
from google.api import annotations_pb2
from google.protobuf import json_format

from bummerl.api import codec
from bummerl.api.codec import CodecError
from bummerl.v1 import common_pb2, game_pb2, game_pb2_grpc, ladder_pb2, ladder_pb2_grpc

EVENTS = [
    {"version": 1, "deal_number": 3, "deal_started": {"dealer": 1, "trump_card": "JH", "trump_suit": "H",
                                                      "hand_sizes": [5, 5]}},
    {"version": 2, "deal_number": 3, "trump_exchanged": {"seat": 0, "card_down": "JH", "card_up": "QH"}},
    {"version": 3, "deal_number": 3, "talon_closed": {"seat": 0}},
    {"version": 3, "deal_number": 3, "passed": {"seat": 0}},
    {"version": 4, "deal_number": 3, "marriage_announced": {"seat": 0, "suit": "H", "points": 40,
                                                            "shown_cards": ["KH", "QH"]}},
    {"version": 4, "deal_number": 3, "card_played": {"seat": 0, "card": "KH"}},
    {"version": 5, "deal_number": 3, "trick_completed": {"winner": 0, "cards": [{"seat": 0, "card": "KH"},
                                                                                {"seat": 1, "card": "9H"}]}},
    {"version": 5, "deal_number": 3, "card_drawn": {"seat": 0, "card": ""}},
    {"version": 5, "deal_number": 3, "card_drawn": {"seat": 1, "card": "JH"}},
    {"version": 6, "deal_number": 3, "declared": {"seat": 0, "correct": True, "deal_points": 67}},
    {"version": 7, "deal_number": 3, "resigned": {"seat": 1}},
    {"version": 7, "deal_number": 3, "timeout": {"seat": 1, "reason": "TIMEOUT"}},
    {"version": 8, "deal_number": 4, "bid": {"seat": 2, "call": "schnapser"}},
    {"version": 8, "deal_number": 4, "contract": {"name": "schnapser", "declarer": 2, "partners": [], "trump_suit": "S",
                                                  "kontra_level": 1, "base_points": 6}},
    {"version": 8, "deal_number": 4, "trump_named": {"seat": 2, "suit": "S"}},
    {"version": 8, "deal_number": 4, "cards_laid_away": {"seat": 2, "count": 2}},
    {"version": 8, "deal_number": 4, "cards_taken_up": {"seat": 1, "count": 2}},
    {"version": 8, "deal_number": 4, "cards_shown": {"seat": 0, "cards": ["JC", "JS", "JH", "JD"]}},
]


def kind(event: dict) -> str:
    """The ``Event.kind`` key of an event dict."""
    (k,) = set(event) - {"version", "deal_number"}
    return k


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
    "match": {"game_points": [0, 3], "target": 7, "direction": "SCORE_DIRECTION_UP", "sets_won": [0, 0],
              "set_target": 7, "sets_to_win": 1, "carried_points": 0, "deal_number": 3, "dealer": 1, "over": False,
              "winner": -1, "deals": [DEAL_RESULT], "placements": [], "playoff": False, "max_deals": 0},
    "deal": {"phase": "PHASE_FOLLOW", "to_act": 1, "leader": 0, "trump_suit": "H", "trump_card": "JH", "talon_size": 8,
             "talon_state": "TALON_STATE_OPEN", "closed_by": -1, "trick_number": 3, "hand": ["AH", "TS"],
             "hand_sizes": [5, 5], "tricks_won": [2, 1], "current_trick": [{"seat": 0, "card": "AH"}],
             "history": [{**e, "version": 0} for e in EVENTS[:3] + EVENTS[4:8]],
             "marriages": [{"seat": 0, "suit": "H", "points": 40, "counted": True}],
             "own_tricks": {"trick_points": 33, "won_cards": ["AS", "TS", "KD"], "deal_points": 53},
             "seats": [0, 1], "laid_away": [], "laid_away_taken_up": []},
    "legal_actions": [{"id": 3, "text": "play QH", "kind": "play", "card": "QH", "suit": "", "contract": ""}],
    "clocks": [{"seat": 0, "remaining_ms": 1200, "running": False, "move_remaining_ms": 0, "bank_ms": 0},
               {"seat": 1, "remaining_ms": 900, "running": True, "move_remaining_ms": 900, "bank_ms": 0}],
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
            if method.client_streaming:  # no REST mapping for a call whose client streams (Play)
                continue
            rule = method.GetOptions().Extensions[annotations_pb2.http]
            assert rule.WhichOneof("pattern") in ("get", "post", "put", "delete", "patch"), method.full_name
            path = getattr(rule, rule.WhichOneof("pattern"))
            assert path.startswith("/v1/"), method.full_name


def test_game_service_rpcs() -> None:
    service = game_pb2.DESCRIPTOR.services_by_name["GameService"]
    names = {m.name: m for m in service.methods}
    assert set(names) == {"ListVariants", "CreateMatch", "GetInformationSet", "SubmitAction", "StreamMatch",
                          "Play", "Resign", "GetMatchRecord", "WatchMatch", "GetMatchReplay", "ListMatches",
                          "GetMatchAnalysis"}
    assert names["StreamMatch"].server_streaming and not names["SubmitAction"].server_streaming
    assert names["Play"].server_streaming and names["Play"].client_streaming
    assert names["WatchMatch"].server_streaming and not names["GetMatchReplay"].server_streaming


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
    """docs/RULES.md §14.2: without ``own_tricks`` no OwnTricks is sent at all (not even zeros)."""
    d = copy.deepcopy(INFOSET)
    del d["deal"]["own_tricks"]
    pb = codec.information_set_to_pb(d)
    assert not pb.deal.HasField("own_tricks")
    assert "own_tricks" not in codec.to_json_dict(pb)["deal"]
    assert codec.information_set_to_dict(pb) == d


@pytest.mark.parametrize("event", EVENTS, ids=kind)
def test_event_round_trip(event) -> None:
    pb = codec.event_to_pb(event)
    assert pb.WhichOneof("kind") == kind(event)
    assert codec.event_to_dict(pb) == event


def test_result_events() -> None:
    deal_end = {"version": 9, "deal_number": 2, "deal_ended": {"result": DEAL_RESULT}}
    assert codec.event_to_pb(deal_end).deal_ended.result.deal_points == [41, 70]
    assert codec.event_to_dict(codec.event_to_pb(deal_end)) == deal_end
    match_end = {"version": 9, "deal_number": 2, "match_ended": {"result": MATCH_RESULT}}
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
    assert j == int64_as_json(INFOSET, common_pb2.InformationSet.DESCRIPTOR)  # the same shape otherwise


@pytest.mark.parametrize(
    ("mutate", "where"),
    [
        (lambda d: d.update(bogus=1), "bogus"),
        (lambda d: d["match"].update(my_points=12), "my_points"),
        (lambda d: d["deal"].update(opponent_hand=["AS"]), "opponent_hand"),
        (lambda d: d["deal"]["history"][0].update(extra=1), "extra"),
        (lambda d: d["deal"]["history"][0]["deal_started"].update(extra=1), "extra"),
        (lambda d: d["deal"]["history"].append({"version": 0, "deal_number": 3, "teleport": {"seat": 0}}),
         "teleport"),
        (lambda d: d["deal"]["history"].append({"version": 0, "deal_number": 3}), "no member of the oneof 'kind'"),
        (lambda d: d["deal"]["history"].append({"version": 0, "deal_number": 3, "passed": {"seat": 0},
                                                "resigned": {"seat": 0}}), "two members of the oneof 'kind'"),
        (lambda d: d["deal"]["history"].append({"type": "pass", "seat": 0}), "type"),  # the old shape
        (lambda d: d["legal_actions"][0].update(score=1), "score"),
        (lambda d: d["deal"].update(phase="dancing"), "dancing"),
        (lambda d: d["deal"].update(phase="follow"), "follow"),  # the short names are gone
        (lambda d: d["deal"].update(talon_state="open"), "open"),
        (lambda d: d["match"].update(direction="up"), "up"),
        (lambda d: d["deal"].update(phase=True), "phase"),
        (lambda d: d["deal"].update(own_trick_points=33), "own_trick_points"),
        (lambda d: d["deal"]["own_tricks"].update(deal_points=True), "deal_points"),
        (lambda d: d["deal"]["own_tricks"].update(won_cards="AS"), "won_cards"),
        (lambda d: d["deal"].update(to_act="1"), "to_act"),
        (lambda d: d["deal"].update(hand="AH"), "hand"),
        (lambda d: d["match"]["deals"][0].update(winner=True), "winner"),
        (lambda d: d["match"].update(over=1), "over"),
        (lambda d: d["clocks"][0].update(running=0), "running"),
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
        codec.event_to_pb({"version": 1, "deal_number": 0, "deal_ended": {"result": {**DEAL_RESULT, "bogus": 1}}})
    with pytest.raises(CodecError, match="Event"):
        codec.event_to_pb({"seat": 0})
    with pytest.raises(CodecError, match="no member of the oneof"):
        codec.event_to_pb({"version": 1, "deal_number": 0})


def test_dict_to_pb_generic() -> None:
    """The dicts outside the seat's view (summaries, records, ladders) keep the short enum names."""
    summary = codec.dict_to_pb(
        {"match_id": "m", "variant": "santase", "options": {"x": True, "n": 3}, "seats": [{"seat": 0, "name": "a"}],
         "version": 0, "time_control": None},
        game_pb2.MatchSummary,
    )
    assert dict(summary.options) == {"x": "true", "n": "3"}
    assert not summary.HasField("time_control")
    tc = {"base_ms": 1000, "increment_ms": 0, "move_cap_ms": 0, "lag_compensation_ms": 0, "scope": "deal", "bank_ms": 0}
    short = codec.dict_to_pb(tc, common_pb2.TimeControl)
    assert short == codec.dict_to_pb({**tc, "scope": "TIME_CONTROL_SCOPE_DEAL"}, common_pb2.TimeControl)
    assert codec.pb_to_dict(short) == tc
    assert codec.pb_to_dict(short, short_enums=False)["scope"] == "TIME_CONTROL_SCOPE_DEAL"
    with pytest.raises(CodecError, match="deal"):
        codec.dict_to_pb(tc, common_pb2.TimeControl, short_enums=False)


# --- one shape: bummerl.rules.base.views mirrors common.proto --------------------------------------------

rules = pytest.importorskip("bummerl.rules")
views = rules.views

#: Fields the engine leaves to the service (bummerl.core.matches adds them).
SERVICE_FIELDS = {"InformationSet": {"match_id", "version"}}


def view_classes() -> list[type]:
    return [c for c in vars(views).values() if isinstance(c, type) and typing.is_typeddict(c)]


@pytest.mark.parametrize("cls", view_classes(), ids=lambda c: c.__name__)
def test_every_view_class_has_its_messages_fields(cls) -> None:
    """Each TypedDict of bummerl.rules.base.views is the message of common.proto with its name (CardsMoved
    serves both CardsMoved kinds): the same keys. Every field without presence is a required key
    (proto3 JSON always prints it), but those the service fills; only a field with presence (a
    message, a oneof member) may be left out, as an unset one is left out of the JSON."""
    desc = common_pb2.DESCRIPTOR.message_types_by_name[cls.__name__]
    fields = {f.name: f for f in desc.fields}
    assert set(typing.get_type_hints(cls)) == set(fields)
    may_lack = {n for n, f in fields.items() if f.message_type is not None and not f.is_repeated
                or f.containing_oneof is not None} | SERVICE_FIELDS.get(cls.__name__, set())
    assert cls.__optional_keys__ <= may_lack
    assert set(fields) - may_lack <= cls.__required_keys__


@pytest.mark.parametrize("name", ["Phase", "TalonState", "ScoreDirection", "TimeControlScope"])
def test_enum_literals_are_the_proto_names(name: str) -> None:
    enum = common_pb2.DESCRIPTOR.enum_types_by_name[name]
    assert set(typing.get_args(getattr(views, name))) == {v.name for v in enum.values}


def int64_as_json(d: Any, desc: Any) -> Any:
    """``d`` (a dict of message ``desc``) with its int64 fields written as proto3 JSON writes them:
    decimal strings. The one difference between the engine's dicts and the served JSON."""
    out = {}
    for k, v in d.items():
        f = desc.fields_by_name[k]
        if f.message_type is not None and not (f.message_type.GetOptions().map_entry):
            out[k] = [int64_as_json(x, f.message_type) for x in v] if f.is_repeated else int64_as_json(v, f.message_type)
        elif f.type in (f.TYPE_INT64, f.TYPE_UINT64, f.TYPE_SINT64):
            out[k] = [str(x) for x in v] if f.is_repeated else str(v)
        else:
            out[k] = v
    return out


def random_views(variant: str, want: int, seed: int = 7):
    """``want`` (information set, events that led to it) pairs from random matches of ``variant``,
    every seat, with the service's fields (``match_id``, ``version``) and, every other step, clocks
    and a time control."""
    rng = random.Random(seed)
    got = 0
    for s in range(40):
        m = rules.new_match(variant, seed=s)
        version = 1
        while not m.over and got < want:
            nxt = rules.apply(m, rng.choice(rules.legal_actions(m)))
            version += 1
            events = rules.events_between(m, nxt, version)
            m = nxt
            for seat in range(m.num_seats):
                if got >= want:
                    return
                d = {**rules.information_set(m, seat), "match_id": "m1", "version": version}
                if got % 2:
                    d["clocks"] = [{"seat": i, "remaining_ms": 1000 * i, "running": i == m.to_act,
                                    "move_remaining_ms": 500 if i == m.to_act else 0, "bank_ms": 0}
                                   for i in range(m.num_seats)]
                    d["time_control"] = {"base_ms": 60000, "increment_ms": 0, "move_cap_ms": 5000,
                                         "lag_compensation_ms": 0, "scope": "TIME_CONTROL_SCOPE_MATCH", "bank_ms": 0}
                yield d, events
                got += 1
        if got >= want:
            return


@pytest.mark.parametrize("variant", [v.id for v in rules.list_variants()])
def test_engine_dict_proto_and_json_are_one_shape(variant: str) -> None:
    """For random positions of every variant, every seat: the served JSON of the encoded
    information set (what the SDK and the REST gateway hand to a bot) *is* the engine's dict, but
    for int64 fields written as strings; decoding gives the dict back exactly; the same for every
    event the service streams."""
    to_json = functools.partial(json_format.MessageToDict, preserving_proto_field_name=True,
                                always_print_fields_with_no_presence=True)
    n = 0
    for d, events in random_views(variant, 150):
        pb = codec.information_set_to_pb(d)
        assert to_json(pb) == int64_as_json(d, common_pb2.InformationSet.DESCRIPTOR)
        assert codec.information_set_to_dict(pb) == d
        for e in events:
            ev = codec.event_to_pb(e)
            assert to_json(ev) == int64_as_json(e, common_pb2.Event.DESCRIPTOR)
            assert codec.event_to_dict(ev) == e
        n += 1
    assert n == 150


# --- the fast path of information_set_to_pb (memo of events, results, legal actions) ------------


@pytest.mark.parametrize("variant", [v.id for v in rules.list_variants()])
def test_fast_information_set_is_byte_identical_to_the_generic_walk(variant: str) -> None:
    """A few hundred information sets of random matches of every variant, every seat (clocks and a
    time control in every other one): the fast path (direct builder, memoized fragments) takes
    them all, and gives the very bytes of the generic per-field walk."""
    checked = 0
    for d, _ in random_views(variant, 400, seed=11):
        fast = codec._information_set_fast(d).SerializeToString()  # raises if it fell back
        assert fast == codec.information_set_to_pb_generic(d).SerializeToString()
        assert codec.information_set_to_pb(d).SerializeToString() == fast
        checked += 1
    assert checked == 400


@pytest.mark.parametrize("variant", ["schnapsen-at", "snapszer-hu-3p-sopron", "bauernschnapsen"])
def test_history_memo_gives_the_same_bytes_and_finds_shared_history_by_identity(variant: str) -> None:
    """``information_set_to_pb(d, history_memo)``, as the service calls it (one memo per deal, the
    history dicts of :func:`history_views` shared by every seat and version of the deal): the
    very bytes of the generic walk for every seat at every version of whole matches; the memo
    holds exactly the history dicts it was given, by identity; an equal dict that is another
    object is encoded anew, not taken for the one in the memo."""
    from bummerl.rules import new_match
    from bummerl.rules.match.infoset import history_views, information_set

    rng = random.Random(3)
    checked = 0
    for seed in range(8):
        m = new_match(variant, seed=seed)
        hist: tuple[Any, ...] = ()
        memo: dict[int, Any] = {}
        while not m.over and checked < 600:
            before = hist
            hist = history_views(m, hist)
            if before and (not hist or hist[0] is not before[0]):
                memo = {}  # a new deal, as the service does
            for seat in range(m.num_seats):
                d = information_set(m, seat, hist)
                got = codec.information_set_to_pb(d, memo).SerializeToString()
                assert got == codec.information_set_to_pb_generic(d).SerializeToString()
                checked += 1
            assert {id(e) for e in hist} == set(memo)
            assert all(memo[id(e)][0] is e for e in hist)
            m.apply(rng.choice(m.legal_actions()))
    assert checked >= 200
    d = copy.deepcopy(INFOSET)
    d["deal"]["history"] = [{**e, "version": 0} for e in EVENTS[:3]]
    memo = {}
    first = codec.information_set_to_pb(d, memo)
    hist = d["deal"]["history"]
    twin = {**d, "deal": {**d["deal"], "history": [{**hist[0], "deal_number": 9}, *hist[1:]]}}
    assert codec.information_set_to_pb(twin, memo) == codec.information_set_to_pb_generic(twin) != first
    assert len(memo) == 4  # the three first items and the new one (the two others are the same objects)


@pytest.mark.parametrize("variant", [v.id for v in rules.list_variants()])
def test_event_to_pb_is_byte_identical_to_the_generic_walk(variant: str) -> None:
    """``event_to_pb`` takes the direct builder (oneof kinds included) and gives the very bytes of
    the generic walk for every event kind and every event of random matches of every variant; a
    dict the direct builder refuses (two kinds) still gets the generic walk's precise error."""
    events = [e for _, evs in random_views(variant, 120, seed=5) for e in evs] + EVENTS
    assert len({next(k for k in e if k not in ("version", "deal_number")) for e in events}) >= 4
    for e in events:
        generic = codec.dict_to_pb(e, common_pb2.Event, short_enums=False).SerializeToString()
        assert codec.event_to_pb(e).SerializeToString() == generic
        assert codec._encode_item(common_pb2.Event, e).SerializeToString() == generic
        common_pb2.Event(**codec._direct(e, common_pb2.Event.DESCRIPTOR, (), None))  # the direct builder took it
    two = {**EVENTS[0], **{k: v for k, v in EVENTS[1].items() if k not in ("version", "deal_number")}}
    with pytest.raises(CodecError, match="two members of the oneof"):
        codec.event_to_pb(two)


def test_fast_path_covers_every_event_kind_through_the_generic_walk() -> None:
    """The fast path knows no event kind: every kind (bids and contracts too) comes out as the
    generic walk makes it, memoized or not, and in order."""
    d = copy.deepcopy(INFOSET)
    d["deal"]["history"] = [{**e, "version": 0} for e in EVENTS]
    for _ in range(2):  # the second time from the memo
        assert codec.information_set_to_pb(d) == codec.information_set_to_pb_generic(d)
    kinds = [e.WhichOneof("kind") for e in codec.information_set_to_pb(d).deal.history]
    assert kinds == [kind(e) for e in EVENTS]


@pytest.mark.parametrize(
    ("mutate", "where"),
    [
        (lambda d: d["deal"]["history"][1]["trump_exchanged"].update(seat=True), "seat"),  # True == 1, but a bool
        (lambda d: d["deal"]["history"][1]["trump_exchanged"].update(seat=0.0), "seat"),  # 0.0 == 0, but a float
        (lambda d: d["deal"]["history"][1].update(deal_number=3.0), "deal_number"),
        (lambda d: d["deal"]["history"][5]["trick_completed"]["cards"][0].update(seat=False), "seat"),
        (lambda d: d["deal"]["history"][5]["trick_completed"].update(cards=({"seat": 0, "card": "KH"}, 7)), "cards"),
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


def test_options_cache_keys_by_exact_type_and_ignores_order() -> None:
    """The options map is encoded once per table: ``True`` and ``1`` are different tables ("true"
    and "1"), the same table in another key order gives the same bytes."""
    for value, text in ((True, "true"), (1, "1"), (True, "true")):
        d = {**INFOSET, "options": {"x": value, "a": "b"}}
        assert codec.information_set_to_pb(d).options["x"] == text
        assert codec.information_set_to_pb_generic(d).options["x"] == text
    swapped = {**INFOSET, "options": {"a": "b", "x": True}}
    assert (codec.information_set_to_pb(swapped).SerializeToString()
            == codec.information_set_to_pb({**INFOSET, "options": {"x": True, "a": "b"}}).SerializeToString())


def test_direct_builder_covers_every_field_and_matches_the_generic_walk() -> None:
    """The hand-made fixture (clocks, time control, own tricks, marriages, current trick, every
    event kind, an auction) goes through the direct builder (no fallback) and gives the generic
    walk's bytes; a key the messages do not have falls back to the generic walk, which refuses it."""
    d = copy.deepcopy(INFOSET)
    d["time_control"] = {"base_ms": 60000, "increment_ms": 1000, "move_cap_ms": 0, "lag_compensation_ms": 50,
                         "scope": "TIME_CONTROL_SCOPE_MATCH"}
    d["deal"]["history"] = [{**e, "version": 0} for e in EVENTS]
    d["deal"]["auction"] = {"bids": [{"seat": 0, "call": "pass"}], "contract": EVENTS[13]["contract"]}
    fast = codec._information_set_fast(d)  # raises if it fell back
    assert fast.SerializeToString() == codec.information_set_to_pb_generic(d).SerializeToString()
    assert fast.deal.auction.bids[0].call == "pass" and fast.deal.auction.contract.base_points == 6
    d["deal"]["auction"]["bids"][0]["kontra"] = 1
    with pytest.raises(CodecError):
        codec._information_set_fast(d)
    with pytest.raises(CodecError, match="kontra"):
        codec.information_set_to_pb(d)


def test_full_memo_drops_its_oldest_fragments_not_the_ones_in_use(monkeypatch: pytest.MonkeyPatch) -> None:
    """When the fragment memo is full it drops the oldest quarter, so the fragment encoded just
    before stays cached (emptying the whole memo made every information set re-encode at once, a
    burst of slow calls in the p99 of ``bummerl bench floor``); the memo never grows past its size."""
    monkeypatch.setattr(codec, "_MEMO", {})
    monkeypatch.setattr(codec, "_MEMO_MAX", 64)
    calls: list[int] = []

    def encode(item: dict[str, Any]) -> common_pb2.TrickCard:
        calls.append(item["seat"])
        return common_pb2.TrickCard(seat=item["seat"], card="QH")

    tags = (b"\x6a",)
    frags = [codec._memo_fragment(tags, {"seat": i, "card": "QH"}, encode) for i in range(200)]
    assert len(codec._MEMO) <= 64 and len(calls) == 200
    assert common_pb2.DealView.FromString(frags[150]).current_trick[0].seat == 150
    calls.clear()
    assert codec._memo_fragment(tags, {"seat": 199, "card": "QH"}, encode) == frags[199]
    assert codec._memo_fragment(tags, {"seat": 180, "card": "QH"}, encode) == frags[180]
    assert calls == []  # the recent ones came from the memo
    codec._memo_fragment(tags, {"seat": 0, "card": "QH"}, encode)
    assert calls == [0]  # the oldest was dropped
