// A Bummerl client over gRPC in Node.js: loads the API from the .proto files with
// @grpc/proto-loader, proto/ of this repository being the only include dir (google/api and
// google/rpc are vendored there), and plays one whole match between two seats that each follow
// their own StreamMatch. Loader options and error details: docs/CLIENTS.md.
//
//   (cd clients/node && npm ci)              # or: make setup
//   node clients/node/grpc.mjs 127.0.0.1:50051 [variant] [seed] [admin token]
//
// Before playing it submits one action that the server must refuse (a stale expected_version)
// and reports how the refusal arrived. Prints one JSON line:
// {"match_id", "variant", "winner", "game_points", "actions", "deal_numbers", "refused": {"code",
//  "details", "error_info"}}, error_info being the decoded google.rpc.ErrorInfo or null.
import path from "node:path";
import { fileURLToPath } from "node:url";

import grpc from "@grpc/grpc-js";
import protoLoader from "@grpc/proto-loader";
import protobuf from "protobufjs";

export const PROTO_DIR = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..", "..", "proto");

// The options every client needs (docs/CLIENTS.md): int64/uint64 as decimal strings (versions,
// seeds, times), enums by name ("PHASE_LEAD"), every field present with its default (seat -1,
// empty lists), the name of the set oneof member in a virtual field (event.kind ==
// "card_played"), proto field names as written (snake_case, as the REST/JSON face uses them).
export const LOADER_OPTIONS = {
  keepCase: true,
  longs: String,
  enums: String,
  defaults: true,
  oneofs: true,
  includeDirs: [PROTO_DIR],
};

export function loadApi() {
  const definition = protoLoader.loadSync(["bummerl/v1/game.proto", "bummerl/v1/ladder.proto"], LOADER_OPTIONS);
  return grpc.loadPackageDefinition(definition).bummerl.v1;
}

// google.rpc.Status and ErrorInfo, from the copies vendored in proto/ (well-known google/protobuf
// types come with protobufjs).
const rpcRoot = new protobuf.Root();
rpcRoot.resolvePath = (origin, target) => (target.startsWith("google/protobuf/") ? target : path.join(PROTO_DIR, target));
rpcRoot.loadSync(["google/rpc/status.proto", "google/rpc/error_details.proto"], { keepCase: true });
const Status = rpcRoot.lookupType("google.rpc.Status");
const ErrorInfo = rpcRoot.lookupType("google.rpc.ErrorInfo");

// The google.rpc.ErrorInfo of a failed call (trailer grpc-status-details-bin), or null when the
// server sent none: {reason: "STALE_VERSION", domain: "bummerl.v1", metadata: {...}}.
export function errorInfo(err) {
  const raw = err?.metadata?.get("grpc-status-details-bin")?.[0];
  if (!raw) return null;
  const status = Status.decode(raw);
  for (const any of status.details) {
    if (any.type_url === "type.googleapis.com/google.rpc.ErrorInfo") {
      const info = ErrorInfo.toObject(ErrorInfo.decode(any.value), { defaults: true });
      return { reason: info.reason, domain: info.domain, metadata: info.metadata };
    }
  }
  return null;
}

const promisify = (client, method) => (request, metadata = new grpc.Metadata()) =>
  new Promise((resolve, reject) => client[method](request, metadata, (err, res) => (err ? reject(err) : resolve(res))));

function bearer(token) {
  const md = new grpc.Metadata();
  if (token) md.set("authorization", `Bearer ${token}`);
  return md;
}

// Lowest-id legal action, except a declaration only when the seat's own recount says 66.
function choose(info) {
  const acts = info.legal_actions;
  const me = info.seat;
  const value = { A: 11, T: 10, K: 4, Q: 3, J: 2, 9: 0 };
  let pts = 0;
  let tricks = 0;
  let marriages = 0;
  for (const ev of info.deal.history) {
    if (ev.kind === "trick_completed" && ev.trick_completed.winner === me) {
      tricks += 1;
      for (const c of ev.trick_completed.cards) pts += value[c.card[0]];
    }
    if (ev.kind === "marriage_announced" && ev.marriage_announced.seat === me) marriages += ev.marriage_announced.points;
  }
  const declare = acts.find((a) => a.kind === "declare");
  if (declare && pts + (tricks ? marriages : 0) >= 66) return declare;
  return acts.filter((a) => a.kind !== "declare")[0] ?? acts[0];
}

async function playSeat(game, matchId, seat, token, dealNumbers) {
  const submit = promisify(game, "SubmitAction");
  const stream = game.StreamMatch({ match_id: matchId, seat, from_version: "0" }, bearer(token));
  let acted = -1;
  for await (const update of stream) {
    for (const ev of update.events) dealNumbers.add(ev.deal_number);
    const info = update.information_set;
    if (info.match.over) return info;
    const version = Number(info.version);
    if (info.deal.to_act === seat && info.legal_actions.length && version > acted) {
      acted = version;
      try {
        await submit({ match_id: matchId, seat, expected_version: info.version, action_id: choose(info).id }, bearer(token));
      } catch (err) {
        if (err.code !== grpc.status.ABORTED) throw err; // stale: the stream brings the new state
      }
    }
  }
  throw new Error("stream ended before the match did");
}

async function main() {
  const [target = "127.0.0.1:50051", variant = "schnapsen-at", seed = "1", adminToken = process.env.BUMMERL_ADMIN_TOKEN] =
    process.argv.slice(2);
  const api = loadApi();
  const game = new api.GameService(target, grpc.credentials.createInsecure());
  const created = await promisify(game, "CreateMatch")(
    { variant, seed, seats: [{ name: "node-grpc-0" }, { name: "node-grpc-1" }] },
    bearer(adminToken),
  );
  const tokens = Object.fromEntries(created.seat_tokens.map((t) => [t.seat, t.token]));
  const matchId = created.match_id;

  // One refused call: the seat to act submits at a version the match has not reached.
  const info = await promisify(game, "GetInformationSet")({ match_id: matchId, seat: 0 }, bearer(tokens[0]));
  const actor = info.deal.to_act;
  const first = await promisify(game, "GetInformationSet")({ match_id: matchId, seat: actor }, bearer(tokens[actor]));
  let refused = null;
  try {
    await promisify(game, "SubmitAction")(
      { match_id: matchId, seat: actor, expected_version: String(Number(first.version) + 100), action_id: first.legal_actions[0].id },
      bearer(tokens[actor]),
    );
  } catch (err) {
    refused = { code: grpc.status[err.code], details: err.details, error_info: errorInfo(err) };
  }

  const dealNumbers = new Set();
  await Promise.all([0, 1].map((s) => playSeat(game, matchId, s, tokens[s], dealNumbers)));
  const record = await promisify(game, "GetMatchRecord")({ match_id: matchId });
  game.close();
  console.log(JSON.stringify({
    match_id: matchId,
    variant: record.variant,
    winner: record.match_result.winner,
    game_points: record.match_result.game_points,
    actions: record.actions.length,
    deal_numbers: [...dealNumbers].sort((a, b) => a - b),
    refused,
  }));
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  main().catch((err) => {
    console.error(`grpc.mjs: ${err.stack ?? err}`);
    process.exit(1);
  });
}
