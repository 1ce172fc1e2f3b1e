#!/usr/bin/env node
// A random Bummerl bot in Node.js (built-ins only) for the stdio bridge (docs/ENGINE_PROTOCOL.md).
// Reads one JSON message per line; answers each "decide" with the text of a random legal action.
import { createInterface } from "node:readline";

const lines = createInterface({ input: process.stdin, crlfDelay: Infinity });
for await (const line of lines) {
  const msg = JSON.parse(line);
  if (msg.type === "decide") {
    const legal = msg.information_set.legal_actions;
    const pick = legal[Math.floor(Math.random() * legal.length)];
    process.stdout.write(pick.text + "\n"); // text or id both work; one line per decision
  } else if (msg.type === "over") {
    break;
  }
}
