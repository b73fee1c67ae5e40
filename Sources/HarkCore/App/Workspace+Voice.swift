import FoundationEssentials
import Glibc

/// /listen, /talk, /speak, /voice and /mute. What they change lasts for this run and this session;
/// `speak`, `voice`, `rate` and `pitch` in the config keep it.
extension Workspace {
    public func voiceSettings(for name: String? = nil) throws -> VoiceSettings {
        let session = try name.map { try self.session(named: $0) } ?? currentConfig
        return try voice.settings(for: session, config: config, paths: paths)
    }

    func listen(_ context: CommandContext) async throws -> CommandOutcome {
        voice.stopSpeaking()
        _ = try voice.checkDictation(try voiceSettings(), paths: paths)
        return .listen
    }

    func talk(_ context: CommandContext) async throws -> CommandOutcome {
        voice.stopSpeaking()
        _ = try voice.checkDictation(try voiceSettings(), paths: paths)
        return .talk(wake: context.arguments.options.flag("--wake"))
    }

    func speak(_ context: CommandContext) async throws -> CommandOutcome {
        let name = context.session.name
        var overrides = voice.overrides(for: name)
        switch context.arguments["on|off"] {
        case nil:
            let settings = try voiceSettings()
            return .output([StyledLine("speech is \(settings.speak ? "on" : "off") in \(name) ("
                + Self.describe(settings.parameters) + ")", .dim)])
        case "on":
            // espeak-ng and the audio output now: with no output, say so at once rather than
            // at the next reply (the output opened here is the one the first reply speaks on).
            try voice.prepareOutput(for: try voiceSettings().parameters)
            overrides.speak = true
            voice.setOverrides(overrides, for: name)
            return .output([StyledLine("replies in \(name) are read aloud (\(Self.describe(try voiceSettings().parameters))); "
                + "/mute stops one, /speak off all", .dim)])
        case "off":
            overrides.speak = false
            voice.setOverrides(overrides, for: name)
            voice.stopSpeaking()
            return .output([StyledLine("replies in \(name) are no longer read aloud", .dim)])
        default:
            throw context.badArguments()
        }
    }

    func mute(_ context: CommandContext) async throws -> CommandOutcome {
        let wasSpeaking = voice.stopSpeaking()
        return .output([StyledLine(wasSpeaking ? "speech stopped" : "nothing is being said", .dim)])
    }

    func voiceCommand(_ context: CommandContext) async throws -> CommandOutcome {
        let name = context.session.name
        let espeak = Espeak.shared
        if context.arguments.words.isEmpty {
            let voices = try espeak.voices
            let current = try voiceSettings().parameters
            let chosen = try current.voice.flatMap { try espeak.voice(named: $0) }
            var rows: [[Span]] = [[Span("voice", .heading), Span("name", .heading), Span("file", .heading)]]
            for entry in voices.sorted(by: { $0.selector < $1.selector }) {
                let mark = current.command == nil
                    && (entry == chosen || (chosen == nil && current.voice == nil && entry.language == "en"))
                rows.append([Span(entry.selector, mark ? .accent : .plain), Span(entry.name), Span(entry.identifier, .dim)])
            }
            var lines = Table.render(rows)
            lines.append(StyledLine("\(voices.count) voices; \(name) speaks with " + Self.describe(current)
                + ". /voice NAME [rate=80-450] [pitch=0-99] changes it", .dim))
            let mbrola = try espeak.mbrolaVoices
            if !voices.contains(where: \.isMBROLA), let example = mbrola.first(where: { $0.mbrola == "us1" }) ?? mbrola.first {
                lines.append(StyledLine("MBROLA voices (\(example.selector) and others) sound more natural; to use them, "
                    + MBROLA.installHint(example), .dim))
            }
            return .output(lines)
        }
        var parameters = voice.overrides(for: name).parameters
        for argument in context.arguments.words {
            let lowered = argument.lowercased()
            if lowered.hasPrefix("rate=") {
                parameters.rate = try Self.number(argument, in: VoiceParameters.rateRange)
            } else if lowered.hasPrefix("pitch=") {
                parameters.pitch = try Self.number(argument, in: VoiceParameters.pitchRange)
            } else if argument.contains("=") {
                throw HarkError.usage("unknown \(argument.prefix(while: { $0 != "=" })); use /voice [NAME] [rate=N] [pitch=N]")
            } else {
                guard try espeak.voice(named: argument) != nil else {
                    if try espeak.mbrolaVoices.contains(where: { $0.selector.lowercased() == argument.lowercased() }) {
                        throw try espeak.unknownVoice(argument, listedBy: "/voice")
                    }
                    let names = try espeak.voices.flatMap { [$0.selector, $0.name] }
                    throw HarkError.usage("espeak-ng has no voice \"\(argument)\""
                        + (Suggest.closest(to: argument, in: names).map { "; did you mean \($0)?" } ?? "; /voice lists them"))
                }
                parameters.voice = argument
            }
        }
        var overrides = voice.overrides(for: name)
        overrides.parameters = parameters
        voice.setOverrides(overrides, for: name)
        return .output([StyledLine("\(name) speaks with " + Self.describe(try voiceSettings().parameters), .dim)])
    }

    /// /info's voice rows: how replies are read and which model dictation uses. Settings only:
    /// no library is loaded and no device opened for this.
    func voiceInfo(_ session: SessionConfig) -> [[Span]] {
        let settings: VoiceSettings
        do {
            settings = try voice.settings(for: session, config: config, paths: paths)
        } catch {
            return [[Span("speech", .dim), Span(error.userMessage, .error)]]
        }
        let speech = "\(settings.speak ? "on" : "off") · " + Self.describe(settings.parameters)
        let model: Span
        if let path = try? VoiceControl.modelPath(settings, paths: paths) {
            model = VoskModel.looksLikeModel(path) ? Span(path) : Span("\(path) (not a Vosk model; hark doctor)", .warning)
        } else {
            model = Span("none (set vosk_model to dictate)", .dim)
        }
        return [[Span("speech", .dim), Span(speech)], [Span("vosk", .dim), model]]
    }

    static func number(_ argument: String, in range: ClosedRange<Int>) throws -> Int {
        let key = argument.prefix(while: { $0 != "=" })
        guard let value = Int(argument.drop(while: { $0 != "=" }).dropFirst()), range.contains(value) else {
            throw HarkError.usage("\(key) must be a whole number from \(range.lowerBound) to \(range.upperBound)")
        }
        return value
    }

    static func describe(_ parameters: VoiceParameters) -> String {
        if let command = parameters.command { return "tts_command \(command)" }
        return "voice \(parameters.voice ?? "en"), rate \(parameters.rate ?? 175), pitch \(parameters.pitch ?? 50)"
    }
}
