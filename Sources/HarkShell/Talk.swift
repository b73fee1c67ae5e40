import FoundationEssentials
import Glibc
import HarkCore

/// Hands-free conversation (`/talk`, `hark talk`): listen, send at the end of what was said,
/// read the reply aloud as it streams, listen again, until the stop phrase, Esc or Ctrl-C (or
/// after `turns` messages). F5 or Ctrl-G pauses listening and resumes it (push to talk); with
/// `wake`, hark waits for the wake phrase before listening, and again after a quiet spell.
/// With the sound server's echo canceller the microphone stays open while hark speaks, and
/// talking over a reply silences it (`BargeIn`); without one the loop is half duplex: the
/// microphone is closed while hark speaks, so it never hears itself. Each turn is an ordinary
/// message run through the workspace, kept in the history like a typed one. The state is shown
/// on stderr: in place on a terminal (the level meter and the words while listening, the
/// reply's spinner while the agent thinks, "speaking" while the reply is read), as lines in a pipe.
final class TalkLoop {
    let workspace: Workspace
    let terminal: Terminal
    let loop: EventLoop
    /// Stop after this many messages (`--turns`); nil talks until told to stop.
    let turns: Int?
    /// Wait for the wake phrase before listening (`--wake`).
    let wake: Bool
    /// Each message sent, for the shell's input history.
    var onSent: (String) -> Void = { _ in }
    let presenter: OutcomePresenter
    let live: Bool

    /// Seconds without a word after which listening starts over (quietly): the sound stream
    /// is reopened rather than kept forever.
    static let idleRestart = 30.0
    /// With `--wake`: seconds without a word after a reply before hark waits for the wake
    /// phrase again.
    static let wakeFollowUp = 10.0

    init(workspace: Workspace, terminal: Terminal, loop: EventLoop, turns: Int?, wake: Bool = false) {
        self.workspace = workspace
        self.terminal = terminal
        self.loop = loop
        self.turns = turns
        self.wake = wake
        live = terminal.errorCapabilities.isTTY
        presenter = OutcomePresenter(workspace: workspace, terminal: terminal, loop: loop, mode: .oneShot(json: false, speak: true))
    }

    /// What one listening turn heard.
    enum Heard: Equatable {
        case message(String)
        /// A cough, a click, or nothing: listen again without a cue.
        case ignored
        /// Nothing said for a long while: with `--wake`, wait for the wake phrase again.
        case idle
        /// The push-to-talk key: stop listening until it is pressed again.
        case paused
        /// The wake phrase or the push-to-talk key: listen now.
        case woke
        /// The loop ends with this exit status (the stop phrase and Esc: 0; Ctrl-C: 130).
        case stop(Int32)
    }

    /// Runs the loop; returns the exit status.
    func run() -> Int32 {
        let settings: VoiceSettings
        let model: VoskModel
        let echo: EchoCanceller?
        do {
            settings = try workspace.voiceSettings()
            _ = try workspace.voice.checkDictation(settings, paths: workspace.paths)
            // espeak-ng, the voice and the audio output are checked before the first turn.
            _ = try workspace.voice.replySpeaker(for: workspace.currentConfig, config: workspace.config,
                                                 paths: workspace.paths, forced: true)
            try workspace.voice.prepareOutput(for: settings.parameters)
            if !workspace.voice.hasLoadedModel(for: settings, paths: workspace.paths) { status("◌ loading the Vosk model…") }
            model = try workspace.voice.model(for: settings, paths: workspace.paths)
            // A wake phrase the model cannot hear is said now, not once it is waited for.
            if wake { _ = try VoskRecognizer(model: model, grammar: settings.wakeGrammar) }
            echo = try loadEchoCanceller(settings)
        } catch {
            status(nil)
            return presenter.fail(error)
        }
        let ownDevices = workspace.voice.devices
        if let echo { workspace.voice.useDevices(echo.devices) }
        // After the last cue: it plays through the canceller too.
        defer {
            if let echo {
                workspace.voice.useDevices(ownDevices)
                echo.unload()
            }
        }
        status(nil)
        introduce(settings, fullDuplex: echo != nil)
        let cues = settings.cues ? CuePlayer(devices: workspace.voice.devices) : nil
        presenter.onSpeaking = { [weak self] in self?.status("◍ speaking… (Ctrl-C stops)") }
        let bargeIn = BargeIn()
        presenter.onReplySpeaker = { bargeIn.reading($0) }
        var sent = 0
        var cue = true
        var waiting = wake
        // The microphone opened while the last reply was read, listening still.
        var open: Dictation?
        defer { status(nil) }
        while turns.map({ sent < $0 }) ?? true {
            if waiting {
                if case .stop(let code) = waitForTurn(model, settings) { return stopped(code, cues: cues) }
                (waiting, cue) = (false, true)
            }
            if cue { try? cues?.play(.listening) }
            let dictation = open ?? makeDictation(model, settings)
            let heard = listen(dictation, settings, started: open != nil)
            open = nil
            switch heard {
            case .ignored, .woke:
                cue = false
            case .idle:
                (waiting, cue) = (wake, false)
            case .paused:
                waiting = true
            case .stop(let code):
                return stopped(code, cues: cues)
            case .message(let text):
                if let cues { Threads.start(name: "hark-cue") { try? cues.play(.sent) } }
                status(nil)
                terminal.writeError("› \(text)\n")
                onSent(text)
                let during = echo == nil ? nil : listenDuringReply(model, settings, bargeIn: bargeIn)
                let code = presenter.run(text)
                let interrupted = bargeIn.replyEnded()
                status(nil)
                endReplyLine()
                sent += 1
                // A reply that failed or was stopped (Ctrl-C) ends the conversation.
                guard code == 0, turns.map({ sent < $0 }) ?? true else {
                    if let during { finish(during) }
                    return stopped(code, cues: cues)
                }
                during?.restartSilenceClock()
                open = during
                cue = !interrupted
            }
        }
        return stopped(0, cues: cues)
    }

    private func stopped(_ code: Int32, cues: CuePlayer?) -> Int32 {
        try? cues?.play(.stopped)
        note("stopped talking")
        return code
    }

    /// Said once per run: how to end, and whether talking over a reply interrupts it.
    private func introduce(_ settings: VoiceSettings, fullDuplex: Bool) {
        let stop = settings.stopWords.first.map { "say \"\($0)\", " } ?? ""
        let start = wake ? "say \"\(settings.wakeWords.first ?? "")\", then speak after the tone"
            : "speak after the tone"
        let pause = terminal.hasKeyboard ? "; F5 or Ctrl-G pauses and resumes listening" : ""
        note("talking with \(workspace.currentSession): \(start), a pause sends; \(stop)Esc or Ctrl-C ends\(pause)")
        if fullDuplex {
            if workspace.voice.tellOnce("full duplex") {
                note("hark listens while it speaks, through the sound server's echo canceller: talk over a reply to interrupt it")
            }
        } else if workspace.voice.tellOnce("half duplex") {
            note("hark does not listen while it speaks, so it never hears itself; to interrupt a reply press Ctrl-C "
                + "(interrupting by voice needs headphones or an echo canceller)")
        }
    }

    /// Before listening: the wake phrase (`--wake`) or the push-to-talk key.
    private func waitForTurn(_ model: VoskModel, _ settings: VoiceSettings) -> Heard {
        if wake { return listen(WakeListener(model: model, settings: settings, devices: workspace.voice.devices), settings) }
        status("‖ paused: F5 or Ctrl-G listens again, Esc ends")
        return listen(nil, settings)
    }

    /// One turn of listening to `input` (or, with none, waiting for a key), ended by a pause
    /// after speech, a key or a signal. A `WakeListener` ends it when it hears the wake phrase.
    /// `started`: the input was started before (while the last reply was read).
    private func listen(_ input: SpeechInput?, _ settings: VoiceSettings, started: Bool = false) -> Heard {
        let waking = input is WakeListener
        let inbox = loop.inbox
        if !started { input?.start { inbox.post(.dictation($0)) } }
        terminal.setKeyMode(.keys)
        // During the reply Ctrl-C is a signal again, which the reply's watch and speech take.
        defer { terminal.setKeyMode(.user) }
        var stoppedWith: Int32?
        var toggled = false
        let interest = EventLoop.Interest(keys: terminal.hasKeyboard, signals: true,
                                          events: { if case .dictation = $0 { return true }; return false })
        while true {
            let wake = loop.wait(interest)
            for signal in wake.signals where [SIGINT, SIGTERM, SIGHUP].contains(signal) {
                // The shell sees a hangup or termination too, and quits.
                if signal != SIGINT { loop.putBack(signals: [signal]) }
                stoppedWith = HarkError.ExitCode.interrupted.rawValue
            }
            if wake.keys {
                switch TalkKeys.action(takeKeys()) {
                case .stop(let code): stoppedWith = stoppedWith ?? code
                case .toggle: toggled = true
                case nil: break
                }
            }
            if stoppedWith != nil || toggled {
                guard let input else { return stoppedWith.map { .stop($0) } ?? .woke }
                input.cancel()
            }
            for case .dictation(let event) in wake.events {
                switch event {
                case .listening:
                    // Only now is the microphone open: what is said before is not heard.
                    if waking {
                        let phrase = settings.wakeWords.first ?? ""
                        if !live { terminal.writeError("waiting for \"\(phrase)\"…\n") }
                        status("◌ say \"\(phrase)\"" + (terminal.hasKeyboard ? " or press F5 to talk" : ""))
                    } else {
                        if !live { terminal.writeError("listening…\n") }
                        status(Shell.meter(0) + " listening")
                    }
                case .heard(let text, let level):
                    status(Shell.meter(level) + " " + (text.isEmpty ? "listening" : text))
                case .failed(let error):
                    status(nil)
                    return .stop(presenter.fail(error))
                case .ended(let recognition, let reason):
                    status(nil)
                    return heard(recognition, reason: reason, settings: settings, waking: waking,
                                 stoppedWith: stoppedWith, toggled: toggled)
                }
            }
        }
    }

    /// What an ended turn of listening means for the loop.
    private func heard(_ recognition: Recognition, reason: DictationEnd, settings: VoiceSettings, waking: Bool,
                       stoppedWith: Int32?, toggled: Bool) -> Heard {
        if let stoppedWith { return .stop(stoppedWith) }
        if toggled { return waking ? .woke : .paused }
        if reason == .cancelled { return .stop(0) }
        if waking { return .woke }
        if reason == .silence { return .idle }
        if settings.isStopPhrase(recognition.text) { return .stop(0) }
        if EndOfTurn.isTooShort(recognition) {
            if !recognition.text.isEmpty { note("(too short to send: \(recognition.text))") }
            return .ignored
        }
        return .message(recognition.text)
    }

    /// The keys pressed, with the rest of an escape sequence that was cut between reads. The
    /// end of input reads as Esc: nothing more can come.
    private func takeKeys() -> [UInt8] {
        if loop.inputEnded && !loop.hasKeys { return [0x1B] }
        var keys = loop.takeKeys()
        while keys.last == 0x1B || TalkKeys.endsInsideSequence(keys), !loop.inputEnded,
              loop.wait(EventLoop.Interest(keys: true, timeout: 20)).keys {
            keys += loop.takeKeys()
        }
        return keys
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
