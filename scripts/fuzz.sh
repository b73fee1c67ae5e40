#!/usr/bin/env bash
# Builds and runs hark's libFuzzer targets (Tests/Fuzz/). SwiftPM cannot build a target with
# -sanitize=fuzzer without unsafe flags that break the normal build, so each fuzzer is
# compiled here with swiftc from an explicit list of HarkCore sources plus its entry file.
#
#   scripts/fuzz.sh                     list the targets
#   scripts/fuzz.sh TARGET [RUNS]       fuzz TARGET for RUNS executions (default 10000000)
#   scripts/fuzz.sh all [RUNS]          every target in turn
#   scripts/fuzz.sh --ci                each target briefly on the committed corpus; fails on a crash
#                                       (skips, saying why, where the toolchain has no libFuzzer)
#   scripts/fuzz.sh --build             build every target, run none (scripts/test.sh does this
#                                       before the suite, so a source list missing a file fails
#                                       at once rather than after 15 minutes of tests)
#   scripts/fuzz.sh --merge TARGET      add the working corpus's new edges to Tests/Fuzz/corpus/TARGET
#   scripts/fuzz.sh --coverage TARGET   line coverage of the committed corpus (llvm-cov)
#
# Everything built or found goes under .build-fuzz/ (git-ignored): bin/ the fuzzers,
# corpus/TARGET the growing working corpus, crashes/TARGET what libFuzzer saves on a crash.
# FUZZ_JOBS=N runs N processes (libFuzzer -fork); FUZZ_FLAGS adds libFuzzer flags.
# FUZZ_ASAN=0 builds without AddressSanitizer: about 2.5 times the executions a second, for
# the long runs; Swift's own checks (bounds, overflow, -assert-config Debug) still crash.
set -euo pipefail
cd "$(dirname "$0")/.."
# Swift's crash backtracer reads the crashed process's memory, which AddressSanitizer reports as
# an error of its own (and may hang on); libFuzzer's report of the crash is what is wanted.
export SWIFT_BACKTRACE=enable=no
if ! command -v swiftc >/dev/null; then
  for candidate in /opt/swift/usr/bin /usr/share/swift/usr/bin; do
    [ -x "$candidate/swiftc" ] && export PATH="$candidate:$PATH" && break
  done
fi

targets=(sse ndjson config command json http n8n openai messages responses secrets a2a sanitizer)
core=Sources/HarkCore
json_sources=("$core/JSON/JSON.swift" "$core/JSON/JSONParser.swift" "$core/JSON/JSONScanner.swift" "$core/JSON/JSONEncoding.swift"
  "$core/JSON/UTF8Validation.swift" "$core/JSON/JSONTokens.swift" "$core/JSON/JSONEscape.swift" "$core/JSON/JSONStringReader.swift")
# The request type, with the TLS options it carries (their ca path is expanded like any path).
http_request=("$core/HTTP/HTTPRequest.swift" "$core/HTTP/TLSOptions.swift" "$core/HTTP/ProxySetting.swift" "$core/Support/PathName.swift" "$core/Config/Paths.swift"
  "$core/Support/PosixFile.swift")
errors=("$core/Support/HarkError.swift" "$core/Support/MessageLine.swift" "$core/Support/Suggest.swift" "$core/Support/SecretValues.swift"
  "$core/Render/TerminalSanitizer.swift" "$core/Render/TerminalSanitizer+WholeText.swift" "$core/Render/TextAttributes.swift"
  "$core/Render/UTF8Scalar.swift"
  "$core/Support/Lock.swift" "$core/Support/TextSearch.swift" "$core/Support/Article.swift")
# What a reply decoder target needs besides the decoder: its helpers, the ReplyDecoder protocol, the
# response head, the events.
decoder_sources=(Tests/Fuzz/Support/ReplyDecoderSupport.swift "$core/Backends/ReplyDecoder.swift" "${http_request[@]}"
  "$core/Model/ReplyEvent.swift" "$core/Model/ResumePoint.swift" "$core/Inbox/NotificationText.swift" "$core/Model/ToolCall.swift" "$core/Questions/AskedQuestion.swift" "$core/Model/Message.swift" "${json_sources[@]}" "${errors[@]}")

# And what the model APIs' decoders share: the SSE parser and the JSON event stream.
model_sources=("$core/Streaming/SSEParser.swift" "$core/Streaming/ByteSearch.swift" "$core/HTTP/ServerMessage.swift"
  "$core/Backends/OpenAI/JSONEventStream.swift" "${decoder_sources[@]}")

# The HarkCore sources a target is compiled from.
sources() {
  case "$1" in
    sse) echo "$core/Streaming/SSEParser.swift $core/Streaming/ByteSearch.swift" ;;
    ndjson) echo "$core/Streaming/LineSplitter.swift $core/Streaming/ByteSearch.swift" ;;
    config) echo "$core/Config/ConfigFile.swift $core/Config/Config.swift $core/Config/SettingType.swift $core/Config/Secret.swift $core/Config/SecretSource.swift $core/Config/URLCredentials.swift" \
      "$core/Tools/MCP/MCPServerConfig.swift $core/Commands/CommandInvocation.swift" \
      "$core/Config/Paths.swift $core/Support/PathName.swift $core/Support/ShellCommand.swift $core/Support/Subprocess.swift" \
      "$core/Support/PosixFile.swift $core/HTTP/HTTPRequest.swift $core/HTTP/TLSOptions.swift $core/HTTP/ProxySetting.swift ${json_sources[*]} ${errors[*]}" ;;
    command) echo "$core/Commands/CommandInvocation.swift ${errors[*]}" ;;
    json) echo "${json_sources[*]}" ;;
    http) echo "$core/HTTP/HTTPResponseParser.swift $core/Streaming/ByteSearch.swift ${http_request[*]} $core/HTTP/RetryPolicy.swift $core/HTTP/HTTPDate.swift ${json_sources[*]} ${errors[*]}" ;;
    n8n) echo "$core/Backends/Webhook/N8NReplyDecoder.swift $core/Streaming/ChunkTemplate.swift $core/Streaming/LineSplitter.swift $core/Streaming/ByteSearch.swift" \
      "${decoder_sources[*]}" ;;
    openai) echo "$core/Backends/OpenAI/ChatCompletions/ChatCompletionDecoder.swift $core/Streaming/ChunkTemplate.swift" \
      "$core/Backends/OpenAI/ChatCompletions/ToolCallAssembler.swift" \
      "${model_sources[*]}" ;;
    messages) echo "$core/Backends/OpenAI/Messages/MessagesEventReader.swift ${model_sources[*]}" ;;
    responses) echo "$core/Backends/OpenAI/Responses/ResponsesEventReader.swift ${model_sources[*]}" ;;
    secrets) echo "$core/Config/Secret.swift $core/Config/SecretSource.swift $core/Config/Config.swift $core/Config/SettingType.swift $core/Config/URLCredentials.swift" \
      "$core/Tools/MCP/MCPServerConfig.swift $core/Commands/CommandInvocation.swift" \
      "$core/HTTP/AuthHeaderCache.swift $core/HTTP/HTTPRequest.swift $core/HTTP/TLSOptions.swift $core/HTTP/ProxySetting.swift $core/Support/ShellCommand.swift" \
      "$core/Support/Subprocess.swift $core/Support/PosixFile.swift $core/Support/PathName.swift $core/Config/Paths.swift" \
      "${json_sources[*]} ${errors[*]}" ;;
    a2a) echo "$core/Backends/A2A/A2AStreamDecoder.swift $core/Backends/A2A/A2AReplyProgress.swift $core/Backends/A2A/A2AWire.swift" \
      "$core/Backends/A2A/A2AFormShape.swift" \
      "$core/Streaming/SSEParser.swift $core/Streaming/ByteSearch.swift $core/HTTP/ServerMessage.swift $core/Support/ByteCount.swift" \
      "${decoder_sources[*]}" ;;
    sanitizer) echo "$core/Render/TerminalSanitizer.swift $core/Render/TerminalSanitizer+WholeText.swift" \
      "$core/Render/TextAttributes.swift $core/Render/Theme.swift" \
      "$core/Render/StyledText.swift $core/Render/TextWidth.swift $core/Render/UTF8Scalar.swift $core/Render/ScreenWriter.swift" \
      "$core/Render/ProseWrapper.swift $core/Render/MarkdownRenderer.swift $core/Render/MarkdownRenderer+Blocks.swift" \
      "$core/Render/MarkdownInline.swift $core/Render/MarkdownLinks.swift $core/Render/MarkdownLineStart.swift" \
      "$core/Render/TableLayout.swift $core/Render/CodeBlockWriter.swift $core/Render/PlainTextRenderer.swift" \
      "$core/Render/Highlight/*.swift" ;;
    *) echo "fuzz.sh: no target \"$1\"; the targets are: ${targets[*]}" >&2; return 2 ;;
  esac
}

# Builds .build-fuzz/bin/TARGET (or TARGET-coverage) unless it is newer than its sources.
# -O for speed, yet -assert-config Debug keeps the bounds checks of unsafe buffers, which the
# parsers use; AddressSanitizer catches what those checks cannot see.
build() {
  local target=$1 variant=${2:-} files output flags command
  files="$(sources "$target") Tests/Fuzz/Support/FuzzSupport.swift $(ls Tests/Fuzz/"$target"/*.swift)"
  output=.build-fuzz/bin/$target$variant
  flags=(-sanitize=fuzzer,address)
  [ "$variant" = -noasan ] && flags=(-sanitize=fuzzer)
  [ "$variant" = -coverage ] && flags=(-sanitize=fuzzer -profile-generate -profile-coverage-mapping)
  flags+=(-O -assert-config Debug -g -parse-as-library -swift-version 6 -module-name HarkFuzz)
  command="swiftc ${flags[*]} $files"
  mkdir -p .build-fuzz/bin
  # Up to date when no source is newer and it was built the same way (the command is kept beside it).
  # shellcheck disable=SC2086
  if [ -x "$output" ] && [ "$(cat "$output.command" 2>/dev/null)" = "$command" ] \
    && [ -z "$(find $files -newer "$output" 2>/dev/null)" ]; then return 0; fi
  echo "fuzz.sh: building $target$variant" >&2
  # ld.gold warns "Cannot export local symbol" for each libFuzzer hook: harmless, so hidden.
  # shellcheck disable=SC2086
  swiftc "${flags[@]}" $files -o "$output" 2> >(grep -v "Cannot export local symbol" >&2)
  echo "$command" >"$output.command"
}

# Builds every target, as many at once as there are cores: each swiftc -O with the sanitizers
# keeps one core busy for about a minute, so one after another left the other core idle for
# the dozen minutes CI spent here. Fails if any build failed (each says why on stderr).
build_all() {
  local target pid status=0 jobs pids=()
  jobs=$(nproc 2>/dev/null || echo 2)
  for target in "${targets[@]}"; do
    if [ ${#pids[@]} -ge "$jobs" ]; then
      wait "${pids[0]}" || status=1
      pids=("${pids[@]:1}")
    fi
    build "$target" &
    pids+=($!)
  done
  for pid in "${pids[@]}"; do wait "$pid" || status=1; done
  return $status
}

# The libFuzzer flags every run shares: a dictionary of the format's tokens when there is one.
common_flags() {
  local target=$1
  flags=(-timeout=10 -rss_limit_mb=2048 -print_final_stats=1 -artifact_prefix=.build-fuzz/crashes/"$target"/)
  [ -f Tests/Fuzz/"$target"/"$target".dict ] && flags+=(-dict=Tests/Fuzz/"$target"/"$target".dict)
  mkdir -p .build-fuzz/crashes/"$target"
}

# The variant FUZZ_ASAN asks for: "" (with AddressSanitizer) or -noasan.
variant() { [ "${FUZZ_ASAN:-1}" = 0 ] && echo -noasan || true; }

fuzz() {
  local target=$1 runs=${2:-10000000}
  build "$target" "$(variant)"
  common_flags "$target"
  mkdir -p .build-fuzz/corpus/"$target"
  [ -n "${FUZZ_JOBS:-}" ] && flags+=(-fork="$FUZZ_JOBS")
  # New inputs go to the first folder (the working corpus); the committed seeds are read only.
  # shellcheck disable=SC2086
  .build-fuzz/bin/"$target$(variant)" "${flags[@]}" -runs="$runs" ${FUZZ_FLAGS:-} \
    .build-fuzz/corpus/"$target" Tests/Fuzz/corpus/"$target"
}

# True when swiftc can link a libFuzzer target here; otherwise says why on one line.
supported() {
  local probe
  if ! command -v swiftc >/dev/null; then echo "fuzz.sh: skipped: no swiftc on PATH" >&2; return 1; fi
  probe=$(mktemp -d)
  printf '@_cdecl("LLVMFuzzerTestOneInput") public func f(_ d: UnsafePointer<UInt8>, _ n: Int) -> CInt { 0 }\n' >"$probe/probe.swift"
  if ! swiftc -sanitize=fuzzer,address -parse-as-library "$probe/probe.swift" -o "$probe/probe" >/dev/null 2>&1; then
    rm -rf "$probe"
    echo "fuzz.sh: skipped: this toolchain cannot build with -sanitize=fuzzer,address ($(swiftc --version 2>&1 | head -n 1))" >&2
    return 1
  fi
  rm -rf "$probe"
}

# A short run of every target on the committed corpus, in a scratch folder so the repository
# stays clean; any crash fails. FUZZ_CI_SECONDS (10) a target, plus the builds the first time.
ci() {
  local status=0 target
  supported || return 0
  scratch=$(mktemp -d)  # global: the EXIT trap runs after this function's locals are gone
  trap 'rm -rf "$scratch"' EXIT
  build_all || return 1
  for target in "${targets[@]}"; do
    common_flags "$target"
    mkdir -p "$scratch/$target"
    echo "fuzz.sh: $target" >&2
    if ! .build-fuzz/bin/"$target" "${flags[@]}" -max_total_time="${FUZZ_CI_SECONDS:-10}" \
        "$scratch/$target" Tests/Fuzz/corpus/"$target" >"$scratch/$target.log" 2>&1; then
      tail -n 40 "$scratch/$target.log" >&2
      echo "fuzz.sh: $target crashed; the input is in .build-fuzz/crashes/$target/" >&2
      status=1
    else
      grep -E '^#[0-9]+[[:space:]]+DONE' "$scratch/$target.log" >&2 || true
    fi
  done
  return $status
}

# Adds to the committed corpus of TARGET the inputs of the working corpus that reach an edge
# it does not (edges only, not hit counts: tens of files rather than hundreds). The named
# seeds stay; running it again adds nothing.
merge() {
  local target=$1 before
  build "$target" "$(variant)"
  before=$(ls Tests/Fuzz/corpus/"$target" | wc -l)
  .build-fuzz/bin/"$target$(variant)" -merge=1 -use_counters=0 -max_len=4096 \
    Tests/Fuzz/corpus/"$target" .build-fuzz/corpus/"$target" 2>&1 | grep -E '^MERGE-OUTER: [0-9]+ new files' >&2 || true
  echo "fuzz.sh: Tests/Fuzz/corpus/$target holds $(ls Tests/Fuzz/corpus/"$target" | wc -l) inputs ($before before)" >&2
}

coverage() {
  local target=$1 profiles tools
  # The profile format is the compiler's: use the llvm tools that came with swiftc.
  tools=$(dirname "$(command -v swiftc)")
  build "$target" -coverage
  profiles=$(mktemp -d)
  LLVM_PROFILE_FILE="$profiles/%p.profraw" .build-fuzz/bin/"$target"-coverage -runs=0 Tests/Fuzz/corpus/"$target" >/dev/null 2>&1
  "$tools"/llvm-profdata merge -sparse "$profiles"/*.profraw -o "$profiles/merged.profdata"
  # shellcheck disable=SC2046
  "$tools"/llvm-cov report .build-fuzz/bin/"$target"-coverage -instr-profile="$profiles/merged.profdata" $(sources "$target")
  rm -rf "$profiles"
}

main() {
  case "${1:-}" in
    "") printf '%s\n' "${targets[@]}" ;;
    --ci) ci ;;
    --build) if supported; then build_all; fi ;;
    --merge) merge "${2:?usage: fuzz.sh --merge TARGET}" ;;
    --coverage) coverage "${2:?usage: fuzz.sh --coverage TARGET}" ;;
    all) for target in "${targets[@]}"; do fuzz "$target" "${2:-10000000}"; done ;;
    -*) echo "fuzz.sh: unknown option $1; see the comment at the top of scripts/fuzz.sh" >&2; exit 2 ;;
    *) sources "$1" >/dev/null && fuzz "$1" "${2:-10000000}" ;;
  esac
}

# On one line, so bash has read it whole: editing this file while a fuzzer runs cannot change
# what the running script does next.
main "$@"; exit $?
