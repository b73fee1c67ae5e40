/// Fuzz target: ConfigFile (Config/ConfigFile.swift), which reads the hand-written config and
/// edits it for `hark session add|rm|edit`. Properties, for any text:
/// - parse never crashes; it fails only with a config error that is one line, names the path
///   and a line number that exists in the text;
/// - a parsed session written by `adding` reads back the same;
/// - `removing` a parsed session leaves a file that parses to the other sessions, unchanged;
/// - `setting` a key of a parsed session (or unsetting it) leaves a file where that session has
///   the new value and everything else is unchanged.

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzConfigFile(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let input = FuzzInput(data, size)
    let text = input.text
    let path = "/home/u/.config/hark/config"
    let config: Config
    do {
        config = try ConfigFile.parse(text, path: path)
    } catch {
        checkOneLineError(error, text: text, path: path)
        return 0
    }
    // Each edit re-reads the whole file: two sessions keep a run fast, and the fuzzer can put
    // any session first.
    for session in config.sessions.prefix(2) {
        checkAdding(session, path: path)
        // The built-in `local` session (no line) has no block to remove.
        if session.line != nil { checkRemoving(session, from: text, config: config, path: path) }
        checkSetting(session, in: text, config: config, path: path, choice: input.splitPoint, value: lastLine(of: text))
    }
    return 0
}

func checkOneLineError(_ error: Error, text: String, path: String) {
    guard let error = error as? HarkError, case .config(let errorPath, let line?, _) = error else {
        return require(false, "parse threw \(error), not a config error with a line")
    }
    let lineCount = max(text.lineSlices().count, 1)
    require(errorPath == path, "the error names \(errorPath)")
    require((1...lineCount).contains(line), "line \(line) of a text of \(lineCount) lines")
    require(!error.message.contains(where: \.isNewline), "a multi-line error: \(error.message)")
    require(error.message.hasPrefix("\(path):\(line): "), "the error does not start with path:line: \(error.message)")
}

func parseOrFail(_ text: String, path: String, _ what: String) -> Config {
    do { return try ConfigFile.parse(text, path: path) } catch {
        require(false, "\(what) wrote a file that does not parse: \(error)\n\(text)")
        fatalError()
    }
}

/// What a session means, without where it was read.
func meaning(_ session: SessionConfig) -> SessionConfig {
    SessionConfig(name: session.name, kind: session.kind, values: session.values)
}

/// The sessions' meanings in name order: the built-in `local` moves when an edit writes it.
func meanings(_ sessions: [SessionConfig]) -> [SessionConfig] {
    sessions.map(meaning).sorted { $0.name < $1.name }
}

func checkAdding(_ session: SessionConfig, path: String) {
    // `adding` writes the kind bare: kinds are registered names (webhook, openai…), so a
    // kind that could not be written bare is not one hark would ever write.
    guard session.kind == session.kind.trimmingSpaces, !session.kind.hasPrefix("\""),
          !session.kind.contains(where: \.isNewline) else { return }
    let written = ConfigFile.adding(session, to: "")
    let reread = parseOrFail(written, path: path, "adding")
    require(reread.sessions.filter { $0.line != nil }.map(meaning) == [meaning(session)],
            "adding \(session) read back as \(reread.sessions)\n\(written)")
}

func checkRemoving(_ session: SessionConfig, from text: String, config: Config, path: String) {
    guard let edited = ConfigFile.removing(session: session.name, from: text) else {
        return require(false, "removing found no block for the parsed session \(session.name)")
    }
    let reread = parseOrFail(edited, path: path, "removing")
    require(reread.global == config.global, "removing \(session.name) changed [hark]")
    // Removing a block of `local` brings back the built-in one.
    var expected = config.sessions.filter { $0.name != session.name }
    if session.name == "local" { expected.append(SessionConfig(name: "local", kind: "local")) }
    require(meanings(reread.sessions) == meanings(expected),
            "removing \(session.name) left \(reread.sessions)\n\(edited)")
}

/// One edit per session, chosen by the input: its first key or `model`, set to a value from the
/// input or removed.
func checkSetting(_ session: SessionConfig, in text: String, config: Config, path: String, choice: Int, value: String) {
    let key = choice % 2 == 0 ? session.values.keys.min() ?? "model" : "model"
    let newValue: String? = choice % 3 == 0 ? nil : value
    let edited = ConfigFile.setting([(key: key, value: newValue)], session: session.name, kind: session.kind, in: text)
    let reread = parseOrFail(edited, path: path, "setting")
    var expected = meanings(config.sessions)
    let index = expected.firstIndex { $0.name == session.name }!
    expected[index].values[key] = newValue
    require(reread.global == config.global, "setting \(key) changed [hark]")
    require(meanings(reread.sessions) == expected,
            "setting \(key) to \(String(describing: newValue)) in \(session.name) gave \(reread.sessions)\n\(edited)")
}

/// A value for `setting`, taken from the input so the fuzzer chooses it too.
func lastLine(of text: String) -> String {
    String(text.lineSlices().last ?? "")
}
