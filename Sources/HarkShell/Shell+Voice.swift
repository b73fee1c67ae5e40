import FoundationEssentials
import Glibc
import HarkCore

/// Dictation in the shell, into the line (`hark-listen`: Ctrl-G, F5, /listen), with the words
/// and a level meter shown as they come. (Replies read aloud are the presenter's.)
extension Shell {
    /// Dictates into the line being edited; returns when dictation ends. Runs inside libedit,
    /// so it redraws the line itself as words arrive.
    func dictate(in editor: LineEditor) -> ListenEnd {
        workspace.voice.stopSpeaking()
        let settings: VoiceSettings
        do {
            settings = try workspace.voiceSettings()
            _ = try workspace.voice.checkDictation(settings, paths: workspace.paths)
        } catch {
            editor.update(promptWidth: promptWidth, above: ansi.wrap("hark: " + error.userMessage, .error))
            return .keep
        }
        let inbox = loop.inbox
        let handle = DictationHandle(inbox: inbox)
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
                inbox.post(.dictation(.failed(error as? HarkError ?? .io(error.userMessage))))
            }
        }

        var typed = DictatedText()
        var sendWhenDone = false
        let interest = EventLoop.Interest(keys: true, signals: true, events: { if case .dictation = $0 { return true }; return false })
        while true {
            let wake = loop.wait(interest)
            for signal in wake.signals where [SIGINT, SIGTERM, SIGHUP].contains(signal) {
                if signal != SIGINT { quitRequested = true }
                handle.cancel()
            }
            if wake.keys {
                switch readKey() {
                case .enter:
                    sendWhenDone = true
                    handle.stop()
                case .cancel: handle.cancel()
                case .other: handle.stop()
                case .none: break
                }
            }
            for case .dictation(let event) in wake.events {
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
                    return finish(recognition, reason: reason, typed: &typed, settings: settings, send: sendWhenDone, in: editor)
                }
            }
        }
    }

    /// Dictation ended: a command word acts on the line, other words stay in it.
    private func finish(_ recognition: Recognition, reason: DictationEnd, typed: inout DictatedText,
                        settings: VoiceSettings, send: Bool, in editor: LineEditor) -> ListenEnd {
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
        guard let key = loop.takeKey() else { return .none }
        switch key {
        case 0x0D, 0x0A: return .enter
        case 0x03: return .cancel
        case 0x1B:
            // Esc alone cancels; the rest of an arrow key's sequence is dropped with it.
            _ = loop.takeKeys()
            while !loop.inputEnded && loop.wait(EventLoop.Interest(keys: true, timeout: 20)).keys { _ = loop.takeKeys() }
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
    private let inbox: Inbox<ShellEvent>

    init(inbox: Inbox<ShellEvent>) {
        self.inbox = inbox
    }

    func begin(_ dictation: Dictation) {
        let start: Bool = lock.withLock {
            guard !ended else { return false }
            self.dictation = dictation
            return true
        }
        if start { dictation.start { [inbox] event in inbox.post(.dictation(event)) } }
    }

    func stop() { end { $0.stop() } }
    func cancel() { end { $0.cancel() } }

    private func end(_ action: (Dictation) -> Void) {
        let running: Dictation? = lock.withLock {
            if dictation == nil && !ended {
                ended = true
                inbox.post(.dictation(.ended(Recognition(), reason: .cancelled)))
            }
            return dictation
        }
        if let running { action(running) }
    }
}
