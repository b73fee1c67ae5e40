#!/usr/bin/env bash
# Lists Swift functions longer than a limit (default 80 lines), longest first:
#   scripts/long-functions.sh [LIMIT] [DIR...]      (default: Sources)
# A function runs from its `func`/`init`/`deinit`/`subscript` line to its closing brace; braces in
# string literals and comments are not counted. A nested function counts within its outer one too.
set -euo pipefail
limit=${1:-80}
shift || true
dirs=("${@:-Sources}")
find "${dirs[@]}" -name '*.swift' -print0 | xargs -0 awk -v limit="$limit" '
FNR == 1 { depth = 0; top = 0; multiline = 0 }
{
    line = $0
    if (multiline) {
        if (index(line, "\"\"\"")) multiline = 0
        next
    }
    if (gsub(/"""/, "&", line) == 1) { multiline = 1; next }
    gsub(/\\"/, "", line)
    gsub(/"[^"]*"/, "\"\"", line)
    sub(/\/\/.*/, "", line)
    if (line ~ /^[[:space:]]*((@[A-Za-z]+(\([^)]*\))?|public|private|fileprivate|internal|open|static|class|final|override|mutating|nonmutating|nonisolated|convenience|required|indirect|dynamic|isolated|consuming|borrowing)[[:space:]]+)*(func[[:space:]]|init[(<?!]|deinit|subscript[(<])/) {
        top++
        name[top] = line; sub(/^[[:space:]]+/, "", name[top]); sub(/[[:space:]]*\{.*$/, "", name[top])
        start[top] = FNR; base[top] = depth; opened[top] = 0
    }
    for (i = 1; i <= length(line); i++) {
        c = substr(line, i, 1)
        if (c == "{") { depth++; if (top && depth == base[top] + 1) opened[top] = 1 }
        else if (c == "}") {
            depth--
            if (top && opened[top] && depth == base[top]) {
                lines = FNR - start[top] + 1
                if (lines > limit) printf "%d\t%s:%d\t%s\n", lines, FILENAME, start[top], substr(name[top], 1, 90)
                top--
            }
        }
    }
    # A declaration without a body (a protocol requirement) ends where it is declared.
    if (top && !opened[top] && start[top] == FNR && line !~ /[{(,]$/ && line !~ /->[[:space:]]*$/ && line !~ /where/) top--
}' | sort -rn
