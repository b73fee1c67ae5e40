#!/usr/bin/env bash
# Times a 1 MB bracketed paste into the interactive shell, as a terminal delivers it: tmux pastes
# the file, and the clock stops when the paste's last line is on the screen. Prints the seconds
# and the CPU hark spent. Usage: scripts/bench/paste.sh [HARK_BINARY]   (needs tmux, python3)
set -euo pipefail
hark=${1:-.build/release/hark}
work=$(mktemp -d)
socket="hark-paste-$$"
trap 'tmux -L "$socket" kill-server 2>/dev/null || true; rm -rf "$work"' EXIT
python3 - "$work/paste.txt" <<'PY'
import random, sys
random.seed(1)
lines, size = [], 0
while size < 1 << 20:
    line = f"line {len(lines)} " + "x" * random.randint(10, 120)
    lines.append(line)
    size += len(line) + 1
open(sys.argv[1], "w").write("\n".join(lines))
print(len(lines) - 1, file=open(sys.argv[1] + ".last", "w"))
PY
last=$(cat "$work/paste.txt.last")
tmux -L "$socket" -f /dev/null new-session -d -s t -x 100 -y 30 \
  "env -i PATH=$PATH TERM=xterm-256color HOME=$work XDG_CONFIG_HOME=$work/config XDG_DATA_HOME=$work/data $hark; sleep 600"
until tmux -L "$socket" capture-pane -p -t t | grep -q "›"; do sleep 0.05; done
shell=$(tmux -L "$socket" list-panes -F '#{pane_pid}')
pid=$(pgrep -P "$shell" | head -1)
tmux -L "$socket" load-buffer -b p "$work/paste.txt"
start=$(date +%s.%N)
tmux -L "$socket" paste-buffer -p -b p -t t
until tmux -L "$socket" capture-pane -p -t t | grep -q "line $last "; do sleep 0.05; done
end=$(date +%s.%N)
ticks=$(getconf CLK_TCK)
awk -v s="$start" -v e="$end" -v t="$ticks" '{ printf "paste shown after %.2f s; hark cpu user %.2f s, system %.2f s\n", e - s, $14 / t, $15 / t }' "/proc/$pid/stat"
