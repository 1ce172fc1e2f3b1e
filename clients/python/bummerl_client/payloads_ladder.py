"""The types of what the SDK's clients return from the LadderService (ladder.proto): one
``TypedDict`` per message, named as the message (``RegisteredBot`` is ``RegisterBotResponse``), in
the JSON form :mod:`.payloads` describes (int64 fields as decimal strings, enums by value name).
(No ``from __future__ import annotations`` here: ``TypedDict`` reads ``NotRequired`` from the
evaluated annotations.)
"""

from typing import NotRequired, TypedDict

from .payloads import LadderFormat, LadderStatus, TimeControl

__all__ = [
    "ArenaStanding", "Assignment", "Bot", "BotVersion", "Challenge", "BotStats", "Ladder", "LadderEvent", "LadderGame", "LadderResult", "LaterLegAdvantage",
    "Leaderboard", "LeaderboardEntry", "PairStats", "PairingMeeting", "PairingRound", "Pairings", "PlannedMeeting",
    "RegisteredBot", "SprtParams", "SwissStanding", "VersionRating",
]


# ---------------------------------------------------------------------------------------------
# LadderService


class BotStats(TypedDict):
    """What a bot did in its games; ``think_ms_p50``, ``think_ms_p99``, ``time_left_ms``,
    ``time_left_sum_ms`` are decimal strings of milliseconds (-1 = none)."""

    games: int
    wins: int
    draws: int
    losses: int
    actions: int
    timeouts: int
    illegal_actions: int
    disconnects: int
    think_ms_p50: str
    think_ms_p99: str
    time_left_ms: str
    think_hist: list[int]
    time_left_sum_ms: str
    timed_games: int


class BotVersion(TypedDict):
    """A published version of a bot (``created_at_ms``: decimal string of ms since the epoch)."""

    version: str
    created_at_ms: str
    note: str


class Bot(TypedDict):
    """A registered bot as everyone may see it (never its token); ``created_at_ms`` and
    ``connected_since_ms`` (0 = not connected) are decimal strings of ms since the epoch;
    ``version`` its newest, ``versions`` all of them, oldest first."""

    bot_id: str
    name: str
    description: str
    created_at_ms: str
    connected: bool
    connected_since_ms: str
    client: str
    revoked: bool
    deleted: bool
    stats: BotStats
    version: str
    versions: list[BotVersion]


class RegisteredBot(TypedDict):
    """``RegisterBotResponse`` (:meth:`AsyncClient.register_bot`, :meth:`AsyncClient.rotate_bot_token`):
    the secret ``bot_token``, shown only here."""

    bot_id: str
    bot_token: str
    name: str


class Challenge(TypedDict):
    """A challenge between two bots (:meth:`AsyncClient.challenge`); ``state`` "pending",
    "accepted", "declined" or "expired"; times as decimal strings of ms since the epoch."""

    challenge_id: str
    challenger: str
    challenger_name: str
    challenged: str
    challenged_name: str
    variant: str
    options: dict[str, str]
    time_control: NotRequired[TimeControl]
    timeout_policy: str
    pairs: int
    deals_per_game: int
    rated: bool
    state: str
    decline_reason: str
    created_at_ms: str
    expires_at_ms: str
    ladder_id: str


class Assignment(TypedDict):
    """A match the bot is to play in ``seat`` (its bot token is the seat token), or (``match_id``
    "") a ``challenge`` for the bot to answer."""

    match_id: str
    seat: int
    variant: str
    ladder_id: str
    challenge: NotRequired[Challenge]


class SprtParams(TypedDict):
    elo0: float
    elo1: float
    alpha: float
    beta: float


class Ladder(TypedDict):
    """A ladder; ``created_at_ms`` and ``connect_timeout_ms`` are decimal strings (ms)."""

    ladder_id: str
    name: str
    variant: str
    options: dict[str, str]
    format: LadderFormat
    bot_ids: list[str]
    rounds: int
    duplicate_deals: bool
    time_control: NotRequired[TimeControl]
    timeout_policy: str
    sprt: NotRequired[SprtParams]
    status: LadderStatus
    matches_total: int
    matches_played: int
    created_at_ms: str
    bot_names: dict[str, str]
    deals_per_game: int
    concurrency: int
    matches_running: int
    num_players: int
    team_of_seat: list[int]
    start_when_connected: bool
    connect_timeout_ms: str
    absent_bots: list[str]
    waiting_for_bots: bool
    pairs_per_meeting: int
    seeding: str
    arena_minutes: int


class LadderGame(TypedDict):
    """A game of :meth:`AsyncClient.ladder_games`: ``state`` "planned", "running" or "finished";
    ``match_id`` once started."""

    game: int
    pair: int
    leg: int
    bots: list[str]
    state: str
    match_id: str


class LaterLegAdvantage(TypedDict):
    """A bot's score in the later legs of its duplicate sets minus the earlier ones (per complete
    set; ``flagged`` when the 95% interval is above 0 over at least 10 sets)."""

    sets: int
    mean: float
    ci95_low: float
    ci95_high: float
    flagged: bool


class VersionRating(TypedDict):
    """One version's own openskill rating over its games."""

    version: str
    mu: float
    sigma: float
    ordinal: float
    games: int


class LeaderboardEntry(TypedDict):
    rank: int
    bot_id: str
    name: str
    mu: float
    sigma: float
    ordinal: float
    games: int
    wins: int
    losses: int
    draws: int
    deals_won: int
    deals_lost: int
    score: float
    stats: BotStats
    later_leg: NotRequired[LaterLegAdvantage]
    version: str
    versions: list[VersionRating]


class PairStats(TypedDict):
    """Head-to-head of bots ``a`` and ``b`` from a's side; ``elo`` and ``elo_ci95`` may be
    ``"Infinity"`` / ``"-Infinity"`` (a clean sweep, an unknown interval)."""

    a: str
    b: str
    a_name: str
    b_name: str
    elo: float | str
    elo_ci95: float | str
    los: float
    deal_pairs: int
    games: int
    pentanomial: list[int]
    sprt_llr: float
    sprt_result: str


class Leaderboard(TypedDict):
    ladder_id: str
    entries: list[LeaderboardEntry]
    pairs: list[PairStats]
    ladder_ids: list[str]
    pool: str


class LadderResult(TypedDict):
    """A finished ladder game (:meth:`AsyncClient.ladder_matches`): per seat ``bots``, ``scores``
    (1 won, 0.5 drawn, 0 lost), ``deals_won``, ``game_points``; ``winner`` -1 = drawn."""

    game: int
    pair: int
    leg: int
    match_id: str
    bots: list[str]
    winner: int
    scores: list[float]
    reason: str
    deals_won: list[int]
    deals: int
    game_points: list[int]
    placements: list[int]
    teams: list[int]
    deals_lost: list[int]
    stats: list[BotStats]
    stage: int
    meeting: str
    versions: list[str]


class PlannedMeeting(TypedDict):
    """A meeting as a ``stage`` event plans it: key, bots, duplicate sets planned."""

    key: str
    bots: list[str]
    sets: int


class LadderEvent(TypedDict):
    """A progress event of :meth:`AsyncClient.stream_ladder`: ``type`` ("created", "started",
    "result", "sprt", "finished"...) says which fields it fills; ``at_ms`` a decimal string."""

    type: str
    ladder_id: str
    at_ms: str
    matches_total: int
    game: int
    match_id: str
    bots: list[str]
    result: NotRequired[LadderResult]  # "result"
    leaderboard: NotRequired[Leaderboard]  # "finished"
    games_played: int
    sprt_llr: float
    sprt_result: str
    stage: int  # "stage"
    label: str
    meetings: list[PlannedMeeting]
    byes: list[str]


class SwissStanding(TypedDict):
    """A bot's place in a Swiss ladder (see ``GetPairings`` in ladder.proto)."""

    bot_id: str
    name: str
    rank: int
    points: float
    buchholz: float
    sonneborn_berger: float
    direct_encounter: float
    byes: int
    played: int


class PairingMeeting(TypedDict):
    """A Swiss pairing or a knockout tie (``winner``/``decided_by`` "" while open)."""

    key: str
    bots: list[str]
    names: list[str]
    games: int
    totals: list[float]
    points: list[float]
    expected: int
    complete: bool
    round: int
    seeds: list[int]
    score: list[float]
    game_points: list[int]
    pairs: int
    winner: str
    decided_by: str


class PairingRound(TypedDict):
    stage: int
    label: str
    byes: list[str]
    meetings: list[PairingMeeting]
    bye_names: list[str]


class ArenaStanding(TypedDict):
    """A bot's arena points (win 2, draw 1, a win after two in a row 4)."""

    bot_id: str
    name: str
    rank: int
    points: int
    games: int
    wins: int
    draws: int
    losses: int
    streak: int
    connected: bool


class Pairings(TypedDict):
    """:meth:`AsyncClient.pairings`: Swiss standings and rounds, or a knockout bracket."""

    ladder_id: str
    format: LadderFormat
    standings: list[SwissStanding]
    rounds: list[PairingRound]
    arena: list[ArenaStanding]
