import FoundationEssentials
import Glibc

/// The voice side of a running hark: what /speak and /voice changed for this run, the one
/// speaker (espeak-ng has one global state), and the Vosk models loaded so far (each takes
/// seconds to load, so it is kept). Nothing here loads a library until a voice feature asks.
public final class VoiceControl: @unchecked Sendable {
    private let lock = Lock()
    private var overrides: [String: VoiceOverrides] = [:]
    private var speaker: Speaker?
    private var models: [String: VoskModel] = [:]
    /// An output opened ahead of the first sentence (`--speak` checks it before sending).
    private var openedOutput: AudioSink?
    /// Notes said once per run (how /talk listens), by name.
    private var told: Set<String> = []
    /// Where audio goes and comes from; tests point it at their own sound server, `/talk` at
    /// its echo canceller (`useDevices`).
    public var devices: AudioDevices {
        get { lock.withLock { currentDevices } }
        set { lock.withLock { currentDevices = newValue } }
    }
    private var currentDevices = AudioDevices()
    /// Speech events (failures above all) for whoever shows them: the shell sets this.
    public var onSpeechEvent: (@Sendable (SpeechEvent) -> Void)?

    public init() {}

    // MARK: Settings

    public func overrides(for session: String) -> VoiceOverrides {
        lock.withLock { overrides[session] ?? VoiceOverrides() }
    }

    public func setOverrides(_ value: VoiceOverrides, for session: String) {
        lock.withLock { overrides[session] = value }
    }

    public func settings(for session: SessionConfig, config: Config, paths: Paths) throws -> VoiceSettings {
        try VoiceSettings.resolve(session: session, config: config, paths: paths, overrides: overrides(for: session.name))
    }

    /// True the first time it is asked about `note` in this run: a note said once.
    public func tellOnce(_ note: String) -> Bool { lock.withLock { told.insert(note).inserted } }

    // MARK: Speaking

    /// The speaker, made on first use; it loads espeak-ng and opens the audio output only when
    /// it first speaks.
    public func speechOutput() -> Speaker {
        lock.withLock {
            if let speaker { return speaker }
            let fallback = currentDevices
            let made = Speaker(openSink: { [weak self] rate in
                if let opened = self?.takeOpenedOutput(), opened.sampleRate == rate { return opened }
                return try (self?.devices ?? fallback).openOutput(sampleRate: rate)
            }, onEvent: { [weak self] event in self?.onSpeechEvent?(event) })
            speaker = made
            return made
        }
    }

    /// Loads espeak-ng and opens the audio output now, so that a missing part is one clear
    /// error before anything is sent rather than a failure once the reply is there.
    public func prepareOutput(for parameters: VoiceParameters) throws {
        let rate = try Self.sampleRate(of: parameters)
        let sink = try devices.openOutput(sampleRate: rate)
        lock.withLock { openedOutput = sink }
    }

    /// The rate speech with these parameters will likely come at (a WAV from a command says
    /// its own; the sink is reopened if it differs).
    public static func sampleRate(of parameters: VoiceParameters) throws -> Int {
        guard parameters.command == nil else { return parameters.commandRate ?? 22050 }
        let rate = try Espeak.shared.load()
        if let name = parameters.voice, let voice = try Espeak.shared.voice(named: name), voice.isMBROLA { return 16000 }
        return rate
    }

    /// Sends speech to, and takes dictation from, other devices from now on (the echo
    /// canceller's, and back): the output opened ahead and the speaker's open sink are let go.
    public func useDevices(_ devices: AudioDevices) {
        let speaker: Speaker? = lock.withLock {
            currentDevices = devices
            openedOutput = nil
            return self.speaker
        }
        speaker?.reopenSink()
    }

    private func takeOpenedOutput() -> AudioSink? {
        lock.withLock {
            defer { openedOutput = nil }
            return openedOutput
        }
    }

    /// Silences speech now; true when something was being said.
    @discardableResult
    public func stopSpeaking() -> Bool {
        guard let speaker = lock.withLock({ speaker }) else { return false }
        let wasSpeaking = speaker.isSpeaking
        speaker.stop()
        return wasSpeaking
    }

    public var isSpeaking: Bool { lock.withLock { speaker }?.isSpeaking ?? false }

    /// A speaker for one reply of `session` when its replies are to be read aloud (`speak`),
    /// after checking that espeak-ng is there. Nil when speech is off for it.
    public func replySpeaker(for session: SessionConfig, config: Config, paths: Paths,
                             forced: Bool = false) throws -> ReplySpeaker? {
        let settings = try self.settings(for: session, config: config, paths: paths)
        guard settings.speak || forced else { return nil }
        if settings.parameters.command == nil {
            try Espeak.shared.load()
            if let voice = settings.parameters.voice, try Espeak.shared.voice(named: voice) == nil {
                throw try Espeak.shared.unknownVoice(voice, listedBy: "/voice", of: session.name)
            }
        }
        return ReplySpeaker(output: speechOutput(), parameters: settings.parameters)
    }

    // MARK: Dictation

    /// The model folder a session dictates with: its `vosk_model`, `[hark]`'s, or the default
    /// folder in hark's data directory when that exists.
    public static func modelPath(_ settings: VoiceSettings, paths: Paths) throws -> String {
        if let configured = settings.voskModel { return configured }
        let fallback = paths.dataDirectory + "/vosk-model"
        if VoskModel.looksLikeModel(fallback) { return fallback }
        throw HarkError.unavailable("dictation needs a Vosk model, and none is set", hint: VoskModel.missingHint)
    }

    /// Checks what dictation needs before anything slow happens: libvosk loads and the model
    /// folder is there. Returns the model's folder.
    public func checkDictation(_ settings: VoiceSettings, paths: Paths) throws -> String {
        try VoskLibrary.load(configured: settings.libvosk, paths: paths)
        let path = try Self.modelPath(settings, paths: paths)
        guard VoskModel.looksLikeModel(path) else {
            _ = try VoskModel(path: path)  // throws the precise reason
            return path
        }
        return path
    }

    /// The loaded model for a session's settings (loaded once per folder, then kept).
    public func model(for settings: VoiceSettings, paths: Paths) throws -> VoskModel {
        let path = try checkDictation(settings, paths: paths)
        if let loaded = lock.withLock({ models[path] }) { return loaded }
        let model = try VoskModel(path: path)
        return lock.withLock {
            if let raced = models[path] { return raced }
            models[path] = model
            return model
        }
    }

    /// True when the session's model is loaded already (the shell says "loading…" otherwise).
    public func hasLoadedModel(for settings: VoiceSettings, paths: Paths) -> Bool {
        guard let path = try? Self.modelPath(settings, paths: paths) else { return false }
        return lock.withLock { models[path] != nil }
    }
}
