import FoundationEssentials
import Glibc
import HarkCore

/// `hark ask`, `hark backup` and `hark restore`.
extension HarkCommandLine {
    /// `hark ask QUESTION`: `/ask` in a local session (`-s`, else the default one if it is
    /// local, else `local`), printed as the shell would; the question may come on stdin.
    func ask(_ parsed: ParsedOptions) throws -> Int32 {
        var question = parsed.words.joined(separator: " ")
        if question.isEmpty && !terminal.hasKeyboard {
            question = String(decoding: terminal.readToEnd(), as: UTF8.self).trimmed
        }
        guard !question.isEmpty else { throw HarkError.usage("usage: hark ask QUESTION (or the question on stdin)") }
        let workspace = try openWorkspace()
        let name: String
        if let chosen = parsed.value("--session") {
            guard try workspace.session(named: chosen).kind == LocalBackend.name else {
                throw HarkError.usage("hark ask reads the documents of a local session; \(chosen) is not one")
            }
            name = chosen
        } else {
            name = workspace.currentConfig.kind == LocalBackend.name ? workspace.currentSession : SessionConfig.builtIn.name
        }
        try workspace.switchSession(to: name)
        let code = OneShot(workspace: workspace, terminal: terminal, json: parsed.flag("--json")).run("/ask " + question)
        finishIndexing(workspace)
        return code
    }

    func backup(_ parsed: ParsedOptions) throws -> Int32 {
        guard parsed.words.count == 1 else { throw HarkError.usage("usage: hark backup FILE") }
        let paths = Paths.fromEnvironment()
        let file = parsed.words[0].expandingTildeInPath
        if FileManager.default.fileExists(atPath: file) {
            guard parsed.flag("--force") else { throw HarkError.usage("\(file) exists; choose another name, or --force replaces it") }
            guard file.standardizingPath != paths.historyDatabase.standardizingPath else {
                throw HarkError.usage("\(file) is the history itself; choose another file")
            }
        }
        let summary = try HistoryBackup.backup(from: paths.historyDatabase, to: file)
        terminal.write("backed up the history to \(file): \(summary.messages) messages, \(summary.forms) forms, "
            + "\(summary.documents) documents, \(summary.bytes / 1024) KB\n")
        return 0
    }

    /// `hark index`: what a one-shot run left for the search index (it starts this in the
    /// background as it exits), or a killed one left, indexed now.
    func index(_ parsed: ParsedOptions) throws -> Int32 {
        guard parsed.words.isEmpty else { throw HarkError.usage("usage: hark index (it takes no arguments)") }
        // Started in the background by a one-shot run (output on /dev/null), it gives way to
        // the next run's reply; asked for at a terminal, it indexes now.
        let pending = try HistoryStore.indexPending(path: Paths.fromEnvironment().historyDatabase,
                                                    givingWayToReplies: isatty(STDOUT_FILENO) == 0)
        terminal.write(pending == 0 ? "the search index is up to date\n"
            : "indexed \(pending) stored \(pending == 1 ? "text" : "texts") for search\n")
        return 0
    }

    func restore(_ parsed: ParsedOptions) throws -> Int32 {
        guard parsed.words.count == 1 else { throw HarkError.usage("usage: hark restore FILE") }
        let paths = Paths.fromEnvironment()
        let file = parsed.words[0].expandingTildeInPath
        guard file.standardizingPath != paths.historyDatabase.standardizingPath else {
            throw HarkError.usage("\(file) is the history itself; name a backup made by hark backup")
        }
        let kept = try HistoryBackup.restore(from: file, into: paths.historyDatabase)
        // An older backup is brought up to this hark's schema now, not by whoever opens it next.
        _ = try HistoryStore(path: paths.historyDatabase)
        terminal.write("restored the history from \(file)"
            + (kept.map { "; the one it replaced is kept at \($0)" } ?? "") + "\n")
        return 0
    }
}
