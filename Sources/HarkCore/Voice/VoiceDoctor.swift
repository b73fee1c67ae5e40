import FoundationEssentials
import Glibc

/// `hark doctor`: each part voice needs, whether it works, and what to do when it does not.
public enum VoiceDoctor {
    public struct Part: Sendable, Equatable {
        public var name: String
        public var ok: Bool
        /// What was found, or the one-line problem with its fix.
        public var detail: String
    }

    public static func check(config: Config, paths: Paths, devices: AudioDevices) -> [Part] {
        var parts: [Part] = []
        func part(_ name: String, _ body: () throws -> String) {
            do { parts.append(Part(name: name, ok: true, detail: try body())) } catch {
                parts.append(Part(name: name, ok: false, detail: error.userMessage))
            }
        }
        part("speech") {
            let espeak = Espeak.shared
            let voices = try espeak.voices
            let mbrola = voices.filter(\.isMBROLA).count
            return "espeak-ng \(try espeak.version), \(voices.count) voices" + (mbrola > 0 ? " (\(mbrola) MBROLA)" : "")
        }
        part("audio output") {
            let sink = try devices.openOutput(sampleRate: 22050)
            return (sink as? AudioSource)?.label ?? "ok"
        }
        part("dictation") {
            "libvosk " + (try VoskLibrary.load(configured: config.global["libvosk"].map(paths.resolveUserPath), paths: paths))
        }
        // The default model, and each session's own where it has one.
        var seen = Set<String>()
        let defaults = (try? VoiceSettings.resolve(session: SessionConfig(name: "-", kind: LocalBackend.name), config: config, paths: paths))
            ?? VoiceSettings()
        part("vosk model") { try describeModel(defaults, paths: paths, seen: &seen) }
        for session in config.sessions where session["vosk_model"] != nil {
            guard let settings = try? VoiceSettings.resolve(session: session, config: config, paths: paths),
                  let path = settings.voskModel, !seen.contains(path) else { continue }
            part("vosk model (\(session.name))") { try describeModel(settings, paths: paths, seen: &seen) }
        }
        part("microphone") { try devices.openInput(sampleRate: 16000).label }
        return parts
    }

    static func describeModel(_ settings: VoiceSettings, paths: Paths, seen: inout Set<String>) throws -> String {
        let path = try VoiceControl.modelPath(settings, paths: paths)
        seen.insert(path)
        guard VoskModel.looksLikeModel(path) else {
            if !FileManager.default.fileExists(atPath: path) {
                throw HarkError.unavailable("no Vosk model at \(path)", hint: VoskModel.missingHint)
            }
            throw HarkError.unavailable("\(path) is not a Vosk model folder (it has no am/final.mdl)", hint: VoskModel.missingHint)
        }
        return "\(path) (\(VoskModel.trainedRate(path)) Hz)"
    }
}
