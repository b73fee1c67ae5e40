import FoundationEssentials
import Glibc

/// How replies are spoken: the espeak-ng voice, rate and pitch (nil leaves espeak-ng's own),
/// or the program that speaks instead of espeak-ng (`tts_command`).
public struct VoiceParameters: Sendable, Equatable {
    public var voice: String?
    public var rate: Int?
    public var pitch: Int?
    /// A shell command reading text on stdin and writing WAV (or raw samples) on stdout.
    public var command: String?
    /// The sample rate of the command's raw output (16-bit mono); nil when it writes WAV.
    public var commandRate: Int?

    public init(voice: String? = nil, rate: Int? = nil, pitch: Int? = nil, command: String? = nil, commandRate: Int? = nil) {
        self.voice = voice
        self.rate = rate
        self.pitch = pitch
        self.command = command
        self.commandRate = commandRate
    }

    public static let rateRange = 80...450
    public static let pitchRange = 0...99
    public static let sampleRateRange = 8000...192_000
}

/// What the shell changed for this run with /speak and /voice, on top of the config.
public struct VoiceOverrides: Sendable, Equatable {
    public var speak: Bool?
    public var parameters = VoiceParameters()

    public init(speak: Bool? = nil, parameters: VoiceParameters = VoiceParameters()) {
        self.speak = speak
        self.parameters = parameters
    }
}

/// The voice settings of one session: its own keys, else the `[hark]` defaults, else the
/// built-in ones, with the shell's /speak and /voice choices on top.
public struct VoiceSettings: Sendable, Equatable {
    public var speak = false
    public var parameters = VoiceParameters()
    /// The Vosk model folder as configured (resolved to a path), or nil when none is set.
    public var voskModel: String?
    /// Where libvosk is, when the config says (`libvosk` in `[hark]`).
    public var libvosk: String?
    /// Phrases dictation is limited to (Vosk's grammar recogniser); empty for free speech.
    public var grammar: [String] = []
    /// Send a dictated message at once instead of leaving it in the line to edit.
    public var autoSend = false
    /// Seconds of silence after speech that end dictation.
    public var pause = 1.5
    /// Words that, said alone while dictating, act on the draft instead of being typed.
    public var sendWords = ["send"]
    public var cancelWords = ["cancel"]
    public var muteWords = ["stop speaking"]
    /// Said alone in the hands-free loop (`/talk`), ends it.
    public var stopWords = ["stop talking"]
    /// The tones of the hands-free loop (listening, sent, stopped).
    public var cues = true
    /// Said while `/talk --wake` waits, starts a turn.
    public var wakeWords = ["hey hark"]
    /// Whether `/talk` listens while it speaks, through the sound server's echo canceller.
    public var echoCancel = EchoCancelSetting.auto

    public init() {}

    /// Keys read here, for the docs and validation; every one may be set per session or in `[hark]`.
    public static let keys = ["speak", "voice", "rate", "pitch", "vosk_model", "vosk_grammar", "auto_send",
                              "listen_pause", "send_word", "cancel_word", "mute_word", "talk_stop_word", "cues",
                              "tts_command", "tts_rate", "wake_word", "echo_cancel"]

    public static func resolve(session: SessionConfig, config: Config, paths: Paths,
                               overrides: VoiceOverrides = VoiceOverrides()) throws -> VoiceSettings {
        let reader = SettingReader(session: session, global: config.global)
        var settings = VoiceSettings()
        settings.speak = try overrides.speak ?? reader.bool("speak") ?? false
        settings.parameters.voice = overrides.parameters.voice ?? reader.text("voice")
        settings.parameters.rate = try overrides.parameters.rate ?? reader.int("rate", in: VoiceParameters.rateRange)
        settings.parameters.pitch = try overrides.parameters.pitch ?? reader.int("pitch", in: VoiceParameters.pitchRange)
        // A voice chosen with /voice is espeak-ng's: it speaks instead of the command for this run.
        settings.parameters.command = overrides.parameters.voice == nil ? reader.text("tts_command") : nil
        settings.parameters.commandRate = try reader.int("tts_rate", in: VoiceParameters.sampleRateRange)
        settings.voskModel = reader.text("vosk_model").map(paths.resolveUserPath)
        settings.libvosk = config.global["libvosk"].flatMap { $0.isEmpty ? nil : paths.resolveUserPath($0) }
        settings.grammar = reader.text("vosk_grammar").map(Self.phrases) ?? []
        settings.autoSend = try reader.bool("auto_send") ?? false
        settings.pause = try reader.double("listen_pause", in: 0.3...10) ?? settings.pause
        settings.sendWords = reader.text("send_word").map(Self.alternatives) ?? settings.sendWords
        settings.cancelWords = reader.text("cancel_word").map(Self.alternatives) ?? settings.cancelWords
        settings.muteWords = reader.text("mute_word").map(Self.alternatives) ?? settings.muteWords
        settings.stopWords = reader.text("talk_stop_word").map(Self.alternatives) ?? settings.stopWords
        settings.cues = try reader.bool("cues") ?? settings.cues
        settings.wakeWords = reader.text("wake_word").map(Self.alternatives) ?? settings.wakeWords
        settings.echoCancel = try reader.echoCancel("echo_cancel") ?? settings.echoCancel
        return settings
    }

    /// `send|go` → ["send", "go"]: a command word may have several spoken forms.
    static func alternatives(_ text: String) -> [String] {
        text.split(separator: "|").map { $0.trimmingSpaces.lowercased() }.filter { !$0.isEmpty }
    }

    /// `yes, no, "turn on"` → ["yes", "no", "turn on"]: commas separate phrases.
    public static func phrases(_ text: String) -> [String] {
        text.split(separator: ",").map { $0.trimmed.trimming { $0 == "\"" }.trimmed }.filter { !$0.isEmpty }
    }

    /// What a dictated text means: a command word said alone, or text to type.
    public enum Spoken: Equatable, Sendable {
        case text(String)
        case send
        case cancel
        case mute
    }

    public func interpret(_ dictated: String) -> Spoken {
        let normalized = Self.normalized(dictated)
        if sendWords.contains(normalized) { return .send }
        if cancelWords.contains(normalized) { return .cancel }
        if muteWords.contains(normalized) { return .mute }
        return .text(dictated)
    }

    /// The words said are the stop phrase of the hands-free loop, and nothing else.
    public func isStopPhrase(_ dictated: String) -> Bool { stopWords.contains(Self.normalized(dictated)) }

    /// What the wake listener recognises: the wake phrases, and the dictation grammar's phrases
    /// as other speech to tell them from (beside Vosk's "[unk]", which some models lack: with
    /// nothing else in the grammar, any speech would come out as the phrase).
    public var wakeGrammar: [String] {
        wakeWords + grammar.filter { phrase in !wakeWords.contains(Self.normalized(phrase)) }
    }

    /// The words heard hold the wake phrase.
    public func holdsWakePhrase(_ heard: String) -> Bool {
        let words = " " + Self.normalized(heard) + " "
        return wakeWords.contains { words.contains(" " + Self.normalized($0) + " ") }
    }

    static func normalized(_ dictated: String) -> String {
        dictated.lowercased().filter { !$0.isPunctuation }.split(separator: " ").joined(separator: " ")
    }
}

/// Reads a key from the session, else from `[hark]`, naming the right place in errors.
private struct SettingReader {
    let session: SessionConfig
    let global: [String: String]

    func text(_ key: String) -> String? {
        session[key] ?? global[key].flatMap { $0.isEmpty ? nil : $0 }
    }

    private func place(_ key: String) -> String { session[key] != nil ? "session \(session.name)" : "[hark]" }

    func bool(_ key: String) throws -> Bool? {
        guard let value = text(key)?.lowercased() else { return nil }
        switch value {
        case "on", "yes", "true", "1": return true
        case "off", "no", "false", "0": return false
        default: throw HarkError.usage("\(place(key)): \(key) must be on or off, not \"\(value)\"")
        }
    }

    func echoCancel(_ key: String) throws -> EchoCancelSetting? {
        guard let value = text(key)?.trimmingSpaces.lowercased() else { return nil }
        guard let setting = EchoCancelSetting(rawValue: value) else {
            throw HarkError.usage("\(place(key)): \(key) must be auto, on or off, not \"\(value)\"")
        }
        return setting
    }

    func int(_ key: String, in range: ClosedRange<Int>) throws -> Int? {
        guard let value = text(key) else { return nil }
        guard let number = Int(value), range.contains(number) else {
            throw HarkError.usage("\(place(key)): \(key) must be a whole number from \(range.lowerBound) to "
                + "\(range.upperBound), not \"\(value)\"")
        }
        return number
    }

    func double(_ key: String, in range: ClosedRange<Double>) throws -> Double? {
        guard let value = text(key) else { return nil }
        guard let number = Double(value), range.contains(number) else {
            throw HarkError.usage("\(place(key)): \(key) must be seconds from \(range.lowerBound) to \(range.upperBound), "
                + "not \"\(value)\"")
        }
        return number
    }
}

extension Paths {
    /// A folder or file the user named in the config: `~/x`, absolute, or relative to the
    /// config folder.
    public func resolveUserPath(_ path: String) -> String {
        let expanded = path.expandingTildeInPath
        if expanded.hasPrefix("/") { return expanded }
        return configDirectory + "/" + path
    }
}
