import FoundationEssentials
import Glibc
import HarkCore

/// Hands-free conversation (`/talk`, `hark talk`): listen, send at the end of what was said,
/// read the reply aloud as it streams, listen again, until the stop phrase, Esc or Ctrl-C (or
/// after `turns` messages). Half duplex: the microphone is closed while hark speaks, so it
/// never hears itself. Each turn is an ordinary message run through the workspace, kept in the
/// history like a typed one. The state is shown on stderr: in place on a terminal (the level
/// meter and the words while listening, the reply's spinner while the agent thinks,
/// "speaking" while the reply is read), as lines in a pipe.
final class TalkLoop {
    let workspace: Workspace
    let terminal: Terminal
    let loop: EventLoop
    /// Stop after this many messages (`--turns`); nil talks until told to stop.
    let turns: Int?
    /// Each message sent, for the shell's input history.
    var onSent: (String) -> Void = { _ in }
    private let presenter: OutcomePresenter
    private let live: Bool

    /// Seconds without a word after which listening starts over (quietly): the sound stream
    /// is reopened rather than kept forever.
    static let idleRestart = 30.0

    init(workspace: Workspace, terminal: Terminal, loop: EventLoop, turns: Int?) {
        self.workspace = workspace
        self.terminal = terminal
        self.loop = loop
        self.turns = turns
        live = terminal.errorCapabilities.isTTY
        presenter = OutcomePresenter(workspace: workspace, terminal: terminal, loop: loop, mode: .oneShot(json: false, speak: true))
    }

    /// What one listening turn heard.
    enum Heard: Equatable {
        case message(String)
        /// A cough, a click, or nothing: listen again without a cue.
        case ignored
        /// The loop ends with this exit status (the stop phrase and Esc: 0; Ctrl-C: 130).
        case stop(Int32)
    }

    /// Runs the loop; returns the exit status.
    func run() -> Int32 {
        let settings: VoiceSettings
        let model: VoskModel
        do {
            settings = try workspace.voiceSettings()
            _ = try workspace.voice.checkDictation(settings, paths: workspace.paths)
            // espeak-ng, the voice and the audio output are checked before the first turn.
            _ = try workspace.voice.replySpeaker(for: workspace.currentConfig, config: workspace.config,
                                                 paths: workspace.paths, forced: true)
            try workspace.voice.prepareOutput()
            if !workspace.voice.hasLoadedModel(for: settings, paths: workspace.paths) { status("◌ loading the Vosk model…") }
            model = try workspace.voice.model(for: settings, paths: workspace.paths)
        } catch {
            status(nil)
            return presenter.fail(error)
        }
        status(nil)
        introduce(settings)
        let cues = settings.cues ? CuePlayer(devices: workspace.voice.devices) : nil
        presenter.onSpeaking = { [weak self] in self?.status("◍ speaking… (Ctrl-C stops)") }
        var sent = 0
        var cue = true
        defer { status(nil) }
        while turns.map({ sent < $0 }) ?? true {
            if cue { try? cues?.play(.listening) }
            switch listen(model, settings) {
            case .ignored:
                cue = false
            case .stop(let code):
                return stopped(code, cues: cues)
            case .message(let text):
                if let cues { Threads.start(name: "hark-cue") { try? cues.play(.sent) } }
                status(nil)
                terminal.writeError("› \(text)\n")
                onSent(text)
                let code = presenter.run(text)
                status(nil)
                endReplyLine()
                // A reply that failed or was stopped (Ctrl-C) ends the conversation.
                if code != 0 { return stopped(code, cues: cues) }
                sent += 1
                cue = true
            }
        }
        return stopped(0, cues: cues)
    }

    private func stopped(_ code: Int32, cues: CuePlayer?) -> Int32 {
        try? cues?.play(.stopped)
        note("stopped talking")
        return code
    }

    /// Said once per run: how to end, and why talking over a reply does not interrupt it.
    private func introduce(_ settings: VoiceSettings) {
        let stop = settings.stopWords.first.map { "say \"\($0)\", " } ?? ""
        note("talking with \(workspace.currentSession): speak after the tone, a pause sends; \(stop)Esc or Ctrl-C ends")
        if workspace.voice.tellOnce("half duplex") {
            note("hark does not listen while it speaks, so it never hears itself; to interrupt a reply press Ctrl-C "
                + "(interrupting by voice needs headphones or an echo canceller)")
        }
    }

    /// One turn of listening, ended by a pause after speech, a key or a signal.
    private func listen(_ model: VoskModel, _ settings: VoiceSettings) -> Heard {
        let dictation = Dictation(model: model, grammar: settings.grammar, pause: settings.pause,
                                  silenceTimeout: Self.idleRestart, devices: workspace.voice.devices,
                                  endOfTurn: EndOfTurn(pause: settings.pause))
        let inbox = loop.inbox
        dictation.start { inbox.post(.dictation($0)) }
        terminal.setKeyMode(.keys)
        // During the reply Ctrl-C is a signal again, which the reply's watch and speech take.
        defer { terminal.setKeyMode(.user) }
        var stoppedWith: Int32?
        let interest = EventLoop.Interest(keys: terminal.hasKeyboard, signals: true,
                                          events: { if case .dictation = $0 { return true }; return false })
        while true {
            let wake = loop.wait(interest)
            for signal in wake.signals where [SIGINT, SIGTERM, SIGHUP].contains(signal) {
                // The shell sees a hangup or termination too, and quits.
                if signal != SIGINT { loop.putBack(signals: [signal]) }
                stoppedWith = HarkError.ExitCode.interrupted.rawValue
                dictation.cancel()
            }
            if wake.keys, let code = stopKey() {
                stoppedWith = stoppedWith ?? code
                dictation.cancel()
            }
            for case .dictation(let event) in wake.events {
                switch event {
                case .listening:
                    // Only now is the microphone open: what is said before is not heard.
                    if !live { terminal.writeError("listening…\n") }
                    status(Shell.meter(0) + " listening")
                case .heard(let text, let level):
                    status(Shell.meter(level) + " " + (text.isEmpty ? "listening" : text))
                case .failed(let error):
                    status(nil)
                    return .stop(presenter.fail(error))
                case .ended(let recognition, let reason):
                    status(nil)
                    if let stoppedWith { return .stop(stoppedWith) }
                    if reason == .cancelled { return .stop(0) }
                    if settings.isStopPhrase(recognition.text) { return .stop(0) }
                    if EndOfTurn.isTooShort(recognition) {
                        if !recognition.text.isEmpty { note("(too short to send: \(recognition.text))") }
                        return .ignored
                    }
                    return .message(recognition.text)
                }
            }
        }
    }

    /// Esc ends the loop (0), Ctrl-C too (130); other keys are dropped. The end of input ends it.
    private func stopKey() -> Int32? {
        if loop.inputEnded && !loop.hasKeys { return 0 }
        var code: Int32?
        while let key = loop.takeKey() {
            if key == 0x03 { code = HarkError.ExitCode.interrupted.rawValue }
            if key == 0x1B && code == nil { code = 0 }
        }
        return code
    }

    /// A reply printed in a pipe as received may not end its line; the next turn starts on one.
    private func endReplyLine() {
        guard !terminal.capabilities.isTTY,
              let last = try? workspace.store.recentMessages(session: workspace.currentSession, limit: 1).last,
              last.role == .assistant, !last.text.hasSuffix("\n") else { return }
        terminal.write("\n")
    }

    /// The state line, redrawn in place on a terminal (nil clears it); nothing in a pipe.
    private func status(_ text: String?) {
        guard live else { return }
        let columns = max(10, terminal.size.columns - 1)
        terminal.writeError("\r\u{1B}[K" + (text.map { Self.fitted($0, columns: columns) } ?? ""))
    }

    private func note(_ text: String) {
        status(nil)
        terminal.writeError(ANSI(terminal.errorCapabilities).wrap(text, .dim) + "\n")
    }

    /// The end of `text` that fits in `columns` cells: the newest words matter most.
    static func fitted(_ text: String, columns: Int) -> String {
        guard TextWidth.of(text) > columns else { return text }
        var kept: [Character] = []
        var width = 1
        for character in text.reversed() {
            let cells = TextWidth.of(String(character))
            if width + cells > columns { break }
            kept.append(character)
            width += cells
        }
        return "…" + String(kept.reversed())
    }
}
