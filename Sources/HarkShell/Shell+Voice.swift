import FoundationEssentials
import Glibc
import HarkCore

/// Voice in the shell: replies read aloud while they render, and dictation into the line
/// (`hark-listen`: Ctrl-G, F5, /listen) with the words and a level meter shown as they come.
extension Shell {
    /// The observer for a reply: it also reads the reply aloud when its session speaks.
    func speakingObserver(for job: ReplyJob, _ inner: ReplyObserver) -> ReplyObserver {
        do {
            let session = try workspace.session(named: job.session)
            guard let speaker = try workspace.voice.replySpeaker(for: session, config: workspace.config,
                                                                 paths: workspace.paths) else { return inner }
            return SpeakingObserver(inner, speaker: speaker)
        } catch {
            showError(error)
            return inner
        }
    }

    /// Dictates into the line being edited; returns when dictation ends. Runs inside libedit,
    /// so it redraws the line itself as words arrive.
    func dictate() -> LineEditor.ListenEnd {
        workspace.voice.stopSpeaking()
        let settings: VoiceSettings
        do {
            settings = try workspace.voiceSettings()
            _ = try workspace.voice.checkDictation(settings, paths: workspace.paths)
        } catch {
            editor.update(promptWidth: promptWidth, above: ansi.wrap("hark: " + error.userMessage, .error))
            return .keep
        }
        let events = Inbox<DictationEvent>()
        let handle = DictationHandle(events: events)
        let voice = workspace.voice
        let paths = workspace.paths
        if !voice.hasLoadedModel(for: settings, paths: paths) {
            editor.update(promptWidth: promptWidth) { listenIndicator = "◌ loading the Vosk model…" }
        }
        // The model loads (the first time, for seconds) away from this thread, so a key still
        // cancels while it does.
        Threads.start(name: "hark-model") {
            do {
                let model = try voice.model(for: settings, paths: paths)
                handle.begin(Dictation(model: model, grammar: settings.grammar, pause: settings.pause, devices: voice.devices))
            } catch {
                events.post(.failed(error as? HarkError ?? .io(error.userMessage)))
            }
        }

        var typed = DictatedText()
        var sendWhenDone = false
        while true {
            var fds = [pollfd(fd: STDIN_FILENO, events: Int16(POLLIN), revents: 0),
                       pollfd(fd: events.readFD, events: Int16(POLLIN), revents: 0),
                       pollfd(fd: Signals.readFD, events: Int16(POLLIN), revents: 0)]
            if poll(&fds, 3, -1) < 0 && errno != EINTR { handle.cancel() }
            for signal in Signals.drain() where [SIGINT, SIGTERM, SIGHUP].contains(signal) {
                if signal != SIGINT { quitRequested = true }
                handle.cancel()
            }
            if fds[0].revents != 0 {
                switch readKey() {
                case .enter:
                    sendWhenDone = true
                    handle.stop()
                case .cancel: handle.cancel()
                case .other: handle.stop()
                case .none: break
                }
            }
            for event in events.take() {
                switch event {
                case .listening:
                    editor.update(promptWidth: promptWidth) { listenIndicator = Self.meter(0) }
                case .heard(let text, let level):
                    let meter = Self.meter(level)
                    guard text != typed.text || meter != listenIndicator else { continue }
                    editor.update(promptWidth: promptWidth) {
                        if text != typed.text { typed.replace(with: text, in: editor) }
                        listenIndicator = meter
                    }
                case .failed(let error):
                    editor.update(promptWidth: promptWidth, above: ansi.wrap("hark: " + error.userMessage, .error)) {
                        typed.replace(with: "", in: editor)
                        listenIndicator = nil
                    }
                    return .keep
                case .ended(let recognition, let reason):
                    return finish(recognition, reason: reason, typed: &typed, settings: settings, send: sendWhenDone)
                }
            }
        }
    }

    /// Dictation ended: a command word acts on the line, other words stay in it.
    private func finish(_ recognition: Recognition, reason: DictationEnd, typed: inout DictatedText,
                        settings: VoiceSettings, send: Bool) -> LineEditor.ListenEnd {
        let spoken = settings.interpret(recognition.text)
        var note: String?
        if recognition.text.isEmpty && reason != .cancelled { note = ansi.wrap("(heard nothing)", .dim) }
        editor.update(promptWidth: promptWidth, above: note) {
            listenIndicator = nil
            switch spoken {
            case .send, .mute: typed.replace(with: "", in: editor)
            case .cancel:
                editor.clearLine()
                draft = []
            case .text(let text): typed.replace(with: text, in: editor)
            }
        }
        let (before, after) = editor.lineAroundCursor()
        let hasMessage = !(before + after).trimmed.isEmpty || !draft.isEmpty
        let sends: Bool
        switch spoken {
        case .send: sends = hasMessage
        case .mute:
            workspace.voice.stopSpeaking()
            sends = false
        case .cancel: sends = false
        case .text(let text): sends = hasMessage && !text.isEmpty && (send || settings.autoSend)
        }
        if sends { editor.endLine(promptWidth: promptWidth) }
        return sends ? .send : .keep
    }

    /// "● ▃▅▁▁": a small level meter of four cells.
    static func meter(_ level: Double) -> String {
        let blocks = ["▁", "▁", "▂", "▃", "▄", "▅", "▆", "▇", "█"]
        let total = Int((max(0, min(1, level)) * 32).rounded())
        return "● " + (0..<4).map { blocks[max(0, min(8, total - $0 * 8))] }.joined()
    }

    enum Key { case enter, cancel, other, none }

    /// A key pressed while dictating: Enter ends and sends, Ctrl-C or Esc drops what was
    /// dictated, any other key ends and keeps it.
    private func readKey() -> Key {
        var byte: UInt8 = 0
        guard read(STDIN_FILENO, &byte, 1) == 1 else { return .none }
        switch byte {
        case 0x0D, 0x0A: return .enter
        case 0x03: return .cancel
        case 0x1B:
            // Esc alone cancels; the rest of an arrow key's sequence is dropped with it.
            var rest = pollfd(fd: STDIN_FILENO, events: Int16(POLLIN), revents: 0)
            while poll(&rest, 1, 20) > 0 {
                var discard: UInt8 = 0
                guard read(STDIN_FILENO, &discard, 1) == 1 else { break }
            }
            return .cancel
        default: return .other
        }
    }
}

/// The words dictation put into the line, replaced as better guesses arrive.
struct DictatedText {
    private(set) var text = ""
    private var inserted = 0

    mutating func replace(with newText: String, in editor: LineEditor) {
        editor.deleteBeforeCursor(inserted)
        let (before, _) = editor.lineAroundCursor()
        let spaced = newText.isEmpty || before.isEmpty || before.last!.isWhitespace ? newText : " " + newText
        editor.insert(spaced)
        inserted = spaced.unicodeScalars.count
        text = newText
    }
}

/// The dictation of one `hark-listen`, which starts only once the model has loaded: a stop
/// or cancel that comes first ends it before it begins.
final class DictationHandle: @unchecked Sendable {
    private let lock = Lock()
    private var dictation: Dictation?
    private var ended = false
    private let events: Inbox<DictationEvent>

    init(events: Inbox<DictationEvent>) {
        self.events = events
    }

    func begin(_ dictation: Dictation) {
        let start: Bool = lock.withLock {
            guard !ended else { return false }
            self.dictation = dictation
            return true
        }
        if start { dictation.start { [events] event in events.post(event) } }
    }

    func stop() { end { $0.stop() } }
    func cancel() { end { $0.cancel() } }

    private func end(_ action: (Dictation) -> Void) {
        let running: Dictation? = lock.withLock {
            if dictation == nil && !ended {
                ended = true
                events.post(.ended(Recognition(), reason: .cancelled))
            }
            return dictation
        }
        if let running { action(running) }
    }
}
