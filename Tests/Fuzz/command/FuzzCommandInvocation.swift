/// Fuzz target: the slash-command parser (CommandInvocation.parse and Tokenizer.split in
/// Commands/CommandInvocation.swift), which reads every line typed or pasted in the shell.
/// Properties, for any line:
/// - it is a command exactly when it starts with one "/"; its name is not empty and holds no
///   whitespace; rawArguments is the rest, without surrounding spaces;
/// - errors are usage errors of one line;
/// - the arguments survive quoting: quoting each word and joining them gives the same words;
/// - when the arguments hold no quote or backslash, rawArguments(droppingFirst: k) splits to
///   the arguments after the first k (for k of 0, 1, 2, half, all but one and all).

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzCommandInvocation(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let line = FuzzInput(data, size).text
    let invocation: CommandInvocation?
    do {
        invocation = try CommandInvocation.parse(line)
    } catch {
        guard let error = error as? HarkError, case .usage = error else {
            require(false, "parse threw \(error), not a usage error")
            return 0
        }
        require(!error.message.contains(where: \.isNewline), "a multi-line error: \(error.message)")
        return 0
    }
    let isCommand = line.hasPrefix("/") && !line.hasPrefix("//")
    guard let invocation else {
        require(!isCommand, "\(line) starts with one / yet is not a command")
        return 0
    }
    require(isCommand, "\(line) is not a command yet parsed as \(invocation)")
    require(!invocation.name.isEmpty && !invocation.name.contains(where: \.isWhitespace), "name \(invocation.name)")
    require(line.hasPrefix("/" + invocation.name), "name \(invocation.name) is not what follows the /")
    require(invocation.rawArguments == invocation.rawArguments.trimmingSpaces, "raw \(invocation.rawArguments) has spaces around")
    require(line.trimmingSpaces.hasSuffix(invocation.rawArguments), "raw \(invocation.rawArguments) is not the end of the line")

    let words = invocation.arguments
    let pieces = words.map(shellQuoted)
    let quoted = pieces.joined(separator: " ")
    // Quotes are Characters: one next to a combining mark (or after a prepended one) fuses
    // with it, so such a word cannot be quoted by adding quotes; the check skips those.
    let quotesKeptApart = zip(words, pieces).allSatisfy { word, piece in
        piece.count == word.count + 2 + 3 * word.filter { $0 == "'" }.count
    } && quoted.count == pieces.reduce(max(pieces.count - 1, 0)) { $0 + $1.count }
    if quotesKeptApart {
        let resplit = try? Tokenizer.split(quoted)
        require(resplit == words, "\(words) quoted as \(quoted) split to \(String(describing: resplit))")
    }

    if !invocation.rawArguments.contains(where: { $0 == "\"" || $0 == "'" || $0 == "\\" }) {
        // A few counts, not every one: each is a pass over the line, and a long line has
        // hundreds of words.
        for count in Set([0, 1, 2, words.count / 2, words.count - 1, words.count]) where (0...words.count).contains(count) {
            let rest = invocation.rawArguments(droppingFirst: count)
            let restWords = try? Tokenizer.split(rest)
            require(restWords == Array(words.dropFirst(count)),
                    "raw after \(count) of \(words) is \(rest), which splits to \(String(describing: restWords))")
        }
    }
    return 0
}

/// A word in single quotes, a single quote itself written as '\'' (as a POSIX shell does).
func shellQuoted(_ word: String) -> String {
    var quoted = "'"
    for character in word {
        if character == "'" { quoted += "'\\''" } else { quoted.append(character) }
    }
    return quoted + "'"
}
