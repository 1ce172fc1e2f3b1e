#!/bin/sh
# A random Bummerl bot in POSIX sh for the stdio bridge (docs/ENGINE_PROTOCOL.md).
# Reads one JSON message per line; answers each "decide" with one legal action id, one line.
# Uses only sed, grep and awk; printf to stdout is unbuffered in sh, so each answer is flushed.
while IFS= read -r line; do
  case "$line" in
    *'"type":"decide"'*)
      ids=$(printf '%s\n' "$line" | sed 's/.*"legal_actions":\[//' | grep -o '"id":[0-9]*' | cut -d: -f2)
      printf '%s\n' "$ids" | awk -v seed="$$$(date +%N 2>/dev/null)" \
        'BEGIN { srand(seed % 2147483647) } { a[NR] = $0 } END { print a[int(rand() * NR) + 1] }'
      ;;
    *'"type":"over"'*) exit 0 ;;
  esac
done
