import FoundationEssentials
import Glibc
import HarkCore

/// `hark speak`, `hark transcribe`, `hark listen`, `hark talk` and `hark doctor`: voice for
/// scripts. They read the config for the voice settings (of `-s SESSION`, else the default
/// session); only `hark talk`, which sends messages, opens the history.
extension HarkCommandLine {
    /// The voice settings of `-s SESSION` (else the default session), with signals set up for
    /// commands that watch for them; the others end by the signal's default action.
    func voiceSettings(_ parsed: ParsedOptions, catchingSignals: Bool = true) throws -> (VoiceSettings, Config, Paths) {
        if catchingSignals {
            terminal.catchSignals([SIGINT, SIGTERM, SIGHUP])
        } else {
            // A parent may have started hark with them blocked; they must take effect.
            var ending = sigset_t()
            sigemptyset(&ending)
            for signal in [SIGINT, SIGTERM, SIGHUP] { sigaddset(&ending, signal) }
            sigprocmask(SIG_UNBLOCK, &ending, nil)
        }
        let paths = Paths.fromEnvironment()
        let config = try ConfigFile.load(paths: paths)
        let session = try config.existingSession(named: parsed.value("--session") ?? config.defaultSession)
        return (try VoiceSettings.resolve(session: session, config: config, paths: paths), config, paths)
    }

    /// The Vosk model of `--model` or the settings, and the words of `--grammar`.
    func vosk(_ parsed: ParsedOptions, _ settings: inout VoiceSettings, paths: Paths) throws -> (VoskModel, [String]) {
        if let model = parsed.value("--model") { settings.voskModel = paths.resolveUserPath(model) }
        try VoskLibrary.load(configured: settings.libvosk, paths: paths)
        let model = try VoskModel(path: try VoiceControl.modelPath(settings, paths: paths))
        return (model, parsed.values("--grammar").flatMap(VoiceSettings.phrases))
    }

    func doctor(_ parsed: ParsedOptions) throws -> Int32 {
        let (_, config, paths) = try voiceSettings(parsed, catchingSignals: false)
        return doctor(config: config, paths: paths)
    }

    func listen(_ parsed: ParsedOptions) throws -> Int32 {
        // Signals are caught once the model has loaded (CLIDictation): while it loads, they end hark.
        var (settings, _, paths) = try voiceSettings(parsed, catchingSignals: false)
        let (model, grammar) = try vosk(parsed, &settings, paths: paths)
        if let pause = parsed.value("--pause") {
            guard let seconds = Double(pause), (0.3...10).contains(seconds) else {
                throw HarkError.usage("--pause needs seconds from 0.3 to 10")
            }
            settings.pause = seconds
        }
        if !grammar.isEmpty { settings.grammar = grammar }
        guard let recognition = try CLIDictation.run(model: model, settings: settings, devices: AudioDevices(),
                                                     terminal: terminal) else {
            return HarkError.ExitCode.interrupted.rawValue
        }
        terminal.write((parsed.flag("--json") ? recognitionJSON(recognition).encoded() : recognition.text) + "\n")
        return 0
    }

    /// `hark talk`: the hands-free loop, each turn a message of `-s SESSION` in the history.
    func talk(_ parsed: ParsedOptions) throws -> Int32 {
        var turns: Int?
        if let text = parsed.value("--turns") {
            guard let count = Int(text), count >= 1 else { throw HarkError.usage("--turns needs a whole number of messages, 1 or more") }
            turns = count
        }
        terminal.catchSignals([SIGINT, SIGTERM, SIGHUP])
        let (workspace, session) = try workspace(parsed)
        if let session { try workspace.switchSession(to: session) }
        let loop = EventLoop(terminal: terminal)
        if terminal.hasKeyboard {
            // A tool call is asked about, as in the shell.
            let asker = TerminalInteraction(terminal: terminal, loop: loop)
            workspace.tools.setInteraction { asker }
        }
        let inbox = loop.inbox
        workspace.voice.onSpeechEvent = { event in
            if case .failed(let error) = event { inbox.post(.speechFailed(error)) }
        }
        defer { workspace.prepareForExit(within: loop.serversEndWithin) }
        let code = TalkLoop(workspace: workspace, terminal: terminal, loop: loop, turns: turns, wake: parsed.flag("--wake")).run()
        finishIndexing(workspace)
        return code
    }

    // MARK: speak

    func speak(_ parsed: ParsedOptions) throws -> Int32 {
        let (settings, _, _) = try voiceSettings(parsed)
        let espeak = Espeak.shared
        if parsed.flag("--voices") {
            for voice in try espeak.voices.sorted(by: { $0.selector < $1.selector }) {
                terminal.write("\(voice.selector)\t\(voice.name)\n")
            }
            return 0
        }
        var parameters = settings.parameters
        if let voice = parsed.value("--voice") {
            guard try espeak.voice(named: voice) != nil else { throw try espeak.unknownVoice(voice, listedBy: "hark speak --voices") }
            parameters.voice = voice
            parameters.command = nil
        }
        if let text = parsed.value("--rate") { parameters.rate = try Self.number(text, "--rate", VoiceParameters.rateRange) }
        if let text = parsed.value("--pitch") { parameters.pitch = try Self.number(text, "--pitch", VoiceParameters.pitchRange) }
        let wav = parsed.value("--wav")
        // The output is opened first, so a missing sound server is one clear error up front; it
        // is opened again should the speech come at another rate.
        let recorder = Locked<PCMRecorder?>(nil)
        let device: AudioSink? = try wav == nil ? AudioDevices().openOutput(sampleRate: VoiceControl.sampleRate(of: parameters)) : nil
        let failures = Inbox<HarkError>()
        let speaker = Speaker(openSink: { rate in
            if let device, device.sampleRate == rate { return device }
            guard wav != nil else { return try AudioDevices().openOutput(sampleRate: rate) }
            return recorder.update { kept in
                if let kept, kept.sampleRate == rate { return kept }
                let made = PCMRecorder(sampleRate: rate)
                kept = made
                return made
            }
        }, onEvent: { event in
            if case .failed(let error) = event { failures.post(error) }
        })
        let reply = ReplySpeaker(output: speaker, parameters: parameters)
        let loop = EventLoop(terminal: terminal)
        if parsed.words.isEmpty {
            guard !terminal.hasKeyboard else { throw HarkError.usage("usage: hark speak TEXT, or pipe the text in") }
            // Sentences are spoken as lines arrive, so `tail -f log | hark speak` talks along.
            var pending: [UInt8] = []
            while !loop.inputEnded {
                let wake = loop.wait(EventLoop.Interest(keys: true, signals: true))
                if !wake.signals.isEmpty {
                    speaker.stop()
                    return HarkError.ExitCode.interrupted.rawValue
                }
                pending += loop.takeKeys()
                // Only whole UTF-8 characters: a multi-byte one may be cut between reads.
                let complete = UTF8Prefix.completeLength(pending)
                guard complete > 0 else { continue }
                reply.feed(.text(String(decoding: pending[0..<complete], as: UTF8.self)))
                pending.removeFirst(complete)
            }
            if !pending.isEmpty { reply.feed(.text(String(decoding: pending, as: UTF8.self))) }
        } else {
            reply.feed(.text(parsed.words.joined(separator: " ")))
        }
        reply.finish()
        guard loop.waitForSpeech(speaker) else { return HarkError.ExitCode.interrupted.rawValue }
        if let error = failures.take().first { throw error }
        if let wav {
            // Nothing to say (no letters) is an empty WAV.
            let recorded = try recorder.read({ $0 }) ?? PCMRecorder(sampleRate: VoiceControl.sampleRate(of: parameters))
            try WAVWriter.write(recorded.samples, sampleRate: recorded.sampleRate, to: wav)
        }
        return 0
    }

    static func number(_ text: String, _ option: String, _ range: ClosedRange<Int>) throws -> Int {
        guard let value = Int(text), range.contains(value) else {
            throw HarkError.usage("\(option) must be a whole number from \(range.lowerBound) to \(range.upperBound)")
        }
        return value
    }

    // MARK: transcribe

    func transcribe(_ parsed: ParsedOptions) throws -> Int32 {
        // Loading a model and reading a file look at no signal: SIGTERM or Ctrl-C ends it at once.
        var (settings, _, paths) = try voiceSettings(parsed, catchingSignals: false)
        let (model, phrases) = try vosk(parsed, &settings, paths: paths)
        var grammar = phrases
        var words = parsed.words
        // `--grammar a b FILE`: the file was taken as a grammar word.
        if words.isEmpty, let last = grammar.last, FileManager.default.fileExists(atPath: last) {
            words = [last]
            grammar.removeLast()
        }
        guard words.count == 1, let file = words.first else {
            throw HarkError.usage("usage: hark transcribe FILE.wav [--model DIR] [--grammar WORD…] [--json]")
        }
        let recognition = try Transcriber.transcribe(file: file, model: model, grammar: grammar)
        terminal.write((parsed.flag("--json") ? recognitionJSON(recognition).encoded() : recognition.text) + "\n")
        return 0
    }

    func recognitionJSON(_ recognition: Recognition) -> JSON {
        .object(["text": .string(recognition.text), "words": .array(recognition.words.map { word in
            ["word": .string(word.word), "start": .number(word.start), "end": .number(word.end),
             "confidence": .number(word.confidence)]
        })])
    }

    // MARK: doctor

    func doctor(config: Config, paths: Paths) -> Int32 {
        let parts = VoiceDoctor.check(config: config, paths: paths, devices: AudioDevices())
        let ansi = ANSI(enabled: terminal.capabilities.colors)
        let width = (parts.map(\.name.count).max() ?? 0) + 2
        for part in parts {
            let mark = part.ok ? ansi.wrap("ok     ", .success) : ansi.wrap("missing", .error)
            terminal.write("\(mark)  \(part.name)\(String(repeating: " ", count: width - part.name.count))\(part.detail)\n")
        }
        return parts.allSatisfy(\.ok) ? 0 : 1
    }
}

/// Dictation for scripts (`hark listen`, `hark --listen`): feedback on stderr ("listening…",
/// and the words as they come when stderr is a terminal), Ctrl-C cancels.
enum CLIDictation {
    /// The words heard, or nil when cancelled.
    static func run(model: VoskModel, settings: VoiceSettings, devices: AudioDevices, terminal: Terminal) throws -> Recognition? {
        terminal.catchSignals([SIGINT, SIGTERM, SIGHUP])
        let live = terminal.errorCapabilities.isTTY
        let loop = EventLoop(terminal: terminal)
        let inbox = loop.inbox
        let dictation = Dictation(model: model, grammar: settings.grammar, pause: settings.pause, devices: devices)
        dictation.start { inbox.post(.dictation($0)) }
        let interest = EventLoop.Interest(signals: true, events: { if case .dictation = $0 { return true }; return false })
        while true {
            let wake = loop.wait(interest)
            if !wake.signals.isEmpty { dictation.cancel() }
            for case .dictation(let event) in wake.events {
                switch event {
                case .listening:
                    terminal.writeError("listening… (a pause of \(format(settings.pause)) s ends it; Ctrl-C cancels)\n")
                case .heard(let text, let level):
                    if live { terminal.writeError("\r\u{1B}[K" + Shell.meter(level) + " " + text) }
                case .failed(let error):
                    if live { terminal.writeError("\r\u{1B}[K") }
                    throw error
                case .ended(let recognition, let reason):
                    if live { terminal.writeError("\r\u{1B}[K") }
                    return reason == .cancelled ? nil : recognition
                }
            }
        }
    }

    static func format(_ seconds: Double) -> String {
        seconds.rounded() == seconds ? String(Int(seconds)) : String(seconds)
    }
}

enum UTF8Prefix {
    /// How many bytes form whole UTF-8 characters: a character cut at the end is left out.
    static func completeLength(_ bytes: [UInt8]) -> Int {
        var index = bytes.count - 1
        var continuation = 0
        while index >= 0, bytes[index] & 0xC0 == 0x80, continuation < 3 {
            index -= 1
            continuation += 1
        }
        guard index >= 0 else { return bytes.count }
        let lead = bytes[index]
        let length = lead < 0x80 ? 1 : lead >> 5 == 0b110 ? 2 : lead >> 4 == 0b1110 ? 3 : lead >> 3 == 0b11110 ? 4 : 1
        return continuation + 1 >= length ? bytes.count : index
    }
}
