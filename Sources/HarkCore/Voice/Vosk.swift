import CVoice
import FoundationEssentials
import Glibc

/// Finds and loads libvosk: where the config says, else where the `vosk` Python wheel put it
/// (the project's own `.local/venv`, hark's data folder's venv, the user's or the system's
/// site-packages), else the system library path.
public enum VoskLibrary {
    static let installHint = "install the vosk wheel with: scripts/setup.sh, or python3 -m venv ~/.local/share/hark/venv "
        + "&& ~/.local/share/hark/venv/bin/pip install vosk"

    /// Loads libvosk once; returns the file it came from.
    @discardableResult
    public static func load(configured: String?, paths: Paths) throws -> String {
        let loaded = hark_vosk_loaded_path().map { String(cString: $0) }
        if let configured {
            guard FileManager.default.fileExists(atPath: configured) else {
                throw HarkError.unavailable("dictation needs libvosk, which is not at \(configured) (libvosk in [hark])",
                                            hint: installHint + ", or correct libvosk")
            }
            // One libvosk per process: once loaded, it stays.
            if let loaded { return loaded }
            if let problem = hark_vosk_load(configured) {
                throw HarkError.unavailable("dictation needs libvosk, but \(configured) does not load: \(String(cString: problem))",
                                            hint: installHint + ", or correct libvosk")
            }
            return configured
        }
        if let loaded { return loaded }
        for candidate in candidates(paths: paths) where FileManager.default.fileExists(atPath: candidate) {
            if hark_vosk_load(candidate) == nil { return candidate }
        }
        // A libvosk.so installed system-wide (from the vosk-api release archive).
        if hark_vosk_load("libvosk.so") == nil { return "libvosk.so" }
        throw HarkError.unavailable("dictation needs libvosk, which is not installed", hint: installHint)
    }

    /// Where the `vosk` wheel may have put libvosk.so, most specific first.
    static func candidates(paths: Paths) -> [String] {
        var roots: [String] = []
        // The repository's own venv (scripts/setup.sh), found from the binary upwards.
        var directory = Paths.executable.deletingLastPathComponent
        for _ in 0..<5 {
            roots.append(directory + "/.local/venv/lib")
            directory = directory.deletingLastPathComponent
        }
        roots.append(paths.dataDirectory + "/venv/lib")
        roots.append(Paths.homeDirectory() + "/.local/lib")
        roots += ["/usr/local/lib", "/usr/lib"]
        var found: [String] = []
        for root in roots {
            guard let entries = try? FileManager.default.contentsOfDirectory(atPath: root) else { continue }
            for python in entries.filter({ $0.hasPrefix("python3") }).sorted().reversed() {
                for packages in ["site-packages", "dist-packages"] {
                    found.append("\(root)/\(python)/\(packages)/vosk/libvosk.so")
                }
            }
        }
        return found
    }
}

/// A word Vosk heard, with its place in the audio and its confidence (0…1).
public struct RecognizedWord: Sendable, Equatable {
    public var word: String
    public var start: Double
    public var end: Double
    public var confidence: Double

    public init(word: String, start: Double, end: Double, confidence: Double) {
        self.word = word
        self.start = start
        self.end = end
        self.confidence = confidence
    }
}

/// What was recognised: the words, and the text without Vosk's `[unk]` placeholders.
public struct Recognition: Sendable, Equatable {
    public var words: [RecognizedWord] = []
    public var text = ""

    public init(words: [RecognizedWord] = [], text: String = "") {
        self.words = words
        self.text = text
    }

    /// Parses Vosk's result JSON (`{"text": …, "result": [{word, start, end, conf}]}`) or a
    /// partial one (`{"partial": …}`).
    init(json: String) {
        guard let value = try? JSON.parse(json) else { return }
        words = (value["result"]?.array ?? value["partial_result"]?.array ?? []).compactMap { item in
            guard let word = item["word"]?.string else { return nil }
            return RecognizedWord(word: word, start: item["start"]?.double ?? 0, end: item["end"]?.double ?? 0,
                                  confidence: item["conf"]?.double ?? 0)
        }
        let raw = value["text"]?.string ?? value["partial"]?.string ?? ""
        text = Self.withoutUnknowns(raw)
    }

    static func withoutUnknowns(_ text: String) -> String {
        text.split(separator: " ").filter { $0 != "[unk]" }.joined(separator: " ")
    }

    /// Utterances one after another.
    public mutating func append(_ other: Recognition) {
        words += other.words
        if !other.text.isEmpty { text = text.isEmpty ? other.text : text + " " + other.text }
    }
}

/// A loaded Vosk model (hundreds of megabytes; load it once and keep it). Freed with the object.
public final class VoskModel: @unchecked Sendable {
    public let path: String
    /// The rate the model was trained at (its conf/mfcc.conf), usually 16000.
    public let sampleRate: Int
    let handle: OpaquePointer

    public static let missingHint = "download one for your language from https://alphacephei.com/vosk/models, unzip it "
        + "and set vosk_model = FOLDER in [hark] or the session"

    public init(path: String) throws {
        guard Self.looksLikeModel(path) else {
            if !FileManager.default.fileExists(atPath: path) {
                throw HarkError.unavailable("dictation needs a Vosk model, and there is none at \(path)", hint: Self.missingHint)
            }
            throw HarkError.unavailable("\(path) is not a Vosk model folder (it has no am/final.mdl)", hint: Self.missingHint)
        }
        guard let handle = hark_vosk_model_new(path) else {
            throw HarkError.unavailable("Vosk could not load the model at \(path)", hint: Self.missingHint)
        }
        self.path = path
        self.handle = handle
        sampleRate = Self.trainedRate(path)
    }

    deinit { hark_vosk_model_free(handle) }

    public static func looksLikeModel(_ path: String) -> Bool {
        let manager = FileManager.default
        return manager.fileExists(atPath: path + "/am/final.mdl") || manager.fileExists(atPath: path + "/final.mdl")
    }

    static func trainedRate(_ path: String) -> Int {
        for file in ["/conf/mfcc.conf", "/mfcc.conf"] {
            guard let text = try? String(contentsOfFile: path + file, encoding: .utf8) else { continue }
            for line in text.lineSlices() where line.hasPrefix("--sample-frequency=") {
                if let rate = Int(line.dropFirst("--sample-frequency=".count).trimmingSpaces) { return rate }
            }
        }
        return 16000
    }

    public func knows(_ word: String) -> Bool { hark_vosk_model_find_word(handle, word) >= 0 }
}

/// One recognition pass over a stream of 16-bit mono audio at the model's rate.
public final class VoskRecognizer {
    private let handle: OpaquePointer
    public let model: VoskModel

    /// `grammar`: limit recognition to these phrases (Vosk's grammar recogniser); every word
    /// of them must be in the model's vocabulary.
    public init(model: VoskModel, grammar: [String] = []) throws {
        self.model = model
        if grammar.isEmpty {
            guard let made = hark_vosk_recognizer_new(model.handle, Float(model.sampleRate)) else {
                throw HarkError.unavailable("Vosk could not start recognising", hint: VoskModel.missingHint)
            }
            handle = made
        } else {
            let unknown = grammar.flatMap { $0.split(separator: " ").map(String.init) }.filter { !model.knows($0) }
            if let word = unknown.first {
                throw HarkError.usage("the Vosk model at \(model.path) does not know the word \"\(word)\"; "
                    + "use words of its language")
            }
            // "[unk]" catches speech outside the grammar, where the model has it.
            var phrases = grammar.map { JSON.string($0) }
            if model.knows("[unk]") { phrases.append("[unk]") }
            guard let made = hark_vosk_recognizer_new_grm(model.handle, Float(model.sampleRate), JSON.array(phrases).encoded()) else {
                throw HarkError.unavailable("Vosk could not start recognising with that grammar",
                                            hint: "check vosk_grammar or --grammar")
            }
            handle = made
        }
        hark_vosk_recognizer_set_words(handle, 1)
    }

    deinit { hark_vosk_recognizer_free(handle) }

    /// Feeds samples; true when an utterance just ended (then read `result()`).
    public func accept(_ samples: UnsafeBufferPointer<Int16>) -> Bool {
        guard let base = samples.baseAddress, !samples.isEmpty else { return false }
        return hark_vosk_recognizer_accept_waveform_s(handle, base, Int32(samples.count)) == 1
    }

    public func accept(_ samples: [Int16]) -> Bool { samples.withUnsafeBufferPointer { accept($0) } }

    public func result() -> Recognition { Recognition(json: String(cString: hark_vosk_recognizer_result(handle))) }
    public func partial() -> Recognition { Recognition(json: String(cString: hark_vosk_recognizer_partial_result(handle))) }
    /// The end of the stream: what is still pending.
    public func finalResult() -> Recognition { Recognition(json: String(cString: hark_vosk_recognizer_final_result(handle))) }
}
