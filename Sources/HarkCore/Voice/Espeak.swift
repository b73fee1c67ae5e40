import CVoice
import FoundationEssentials
import Glibc

/// espeak-ng, loaded on first use (nothing of it is in memory before). Its state is global to
/// the process and not thread-safe, so every call holds `lock`; synthesis is synchronous and
/// hands each buffer of samples to the caller as it is made.
public final class Espeak: SpeechSynthesizer, @unchecked Sendable {
    public static let shared = Espeak()

    /// One installed voice, as `/voice` lists them.
    public struct Voice: Sendable, Equatable {
        public var name: String
        /// The file id, e.g. "gmw/en-US".
        public var identifier: String
        /// The main language, e.g. "en-us": what `voice =` usually names.
        public var language: String
        public var gender: String
        /// The MBROLA database it speaks with ("en1"); nil for espeak-ng's own voices.
        public var mbrola: String?

        /// What `voice =` and `/voice` take to choose it: the language, or for an MBROLA voice
        /// its file name ("mb-en1"), since its language names espeak-ng's own voice.
        public var selector: String {
            isMBROLA ? identifier.split(separator: "/").last.map(String.init) ?? identifier : language
        }

        public var isMBROLA: Bool { identifier.hasPrefix("mb/") }
    }

    public static let missing = HarkError.unavailable("speech needs espeak-ng, which is not installed",
                                                      hint: "install it with: sudo apt-get install espeak-ng")

    private let lock = Lock()
    private var loaded: (rate: Int, voices: [Voice], mbrola: [Voice])?
    private var current = VoiceParameters()

    /// Loads the library; the sample rate of what it makes.
    @discardableResult
    public func load() throws -> Int {
        try lock.withLock { try loadLocked().rate }
    }

    private func loadLocked() throws -> (rate: Int, voices: [Voice], mbrola: [Voice]) {
        if let loaded { return loaded }
        // 40 ms buffers: speech reaches the sink (and can be stopped) in small steps.
        if let error = hark_espeak_load(40) {
            let reason = String(cString: error)
            if reason.contains("not installed") { throw Self.missing }
            throw HarkError.unavailable("espeak-ng does not work: \(reason)",
                                        hint: "reinstall it with: sudo apt-get install --reinstall espeak-ng espeak-ng-data")
        }
        let voices = Self.listed(mbrola: false)
        let dataPath = String(cString: hark_espeak_data_path())
        var mbrola = Self.listed(mbrola: true)
        for index in mbrola.indices {
            mbrola[index].mbrola = MBROLA.databaseName(voiceFile: dataPath + "/voices/" + mbrola[index].identifier)
        }
        let result = (rate: Int(hark_espeak_sample_rate()), voices: voices, mbrola: mbrola)
        loaded = result
        return result
    }

    /// espeak-ng's list of its own voices, or of the MBROLA ones (installed or not).
    private static func listed(mbrola: Bool) -> [Voice] {
        var voices: [Voice] = []
        for index in 0..<hark_espeak_list_voices(mbrola ? 1 : 0) {
            var name: UnsafePointer<CChar>?, identifier: UnsafePointer<CChar>?, language: UnsafePointer<CChar>?
            var gender: Int32 = 0
            guard hark_espeak_voice_at(index, &name, &identifier, &language, &gender) == 0 else { continue }
            voices.append(Voice(name: name.map { String(cString: $0) } ?? "",
                                identifier: identifier.map { String(cString: $0) } ?? "",
                                language: language.map { String(cString: $0) } ?? "",
                                gender: gender == 1 ? "male" : gender == 2 ? "female" : ""))
        }
        return voices
    }

    public var version: String {
        get throws { try lock.withLock { _ = try loadLocked(); return String(cString: hark_espeak_version()) } }
    }

    public var dataPath: String {
        get throws { try lock.withLock { _ = try loadLocked(); return String(cString: hark_espeak_data_path()) } }
    }

    /// The voices that can speak: espeak-ng's own, and the MBROLA ones installed here.
    public var voices: [Voice] {
        get throws {
            let (own, mbrola) = try lock.withLock { () throws -> ([Voice], [Voice]) in
                let loaded = try loadLocked()
                return (loaded.voices, loaded.mbrola)
            }
            return own + MBROLA.usable(mbrola, dataPath: try dataPath)
        }
    }

    /// Every MBROLA voice espeak-ng knows (`espeak-ng --voices=mb`), installed or not.
    public var mbrolaVoices: [Voice] {
        get throws { try lock.withLock { try loadLocked().mbrola } }
    }

    /// The installed voice a name means: a language ("en-us"), a file id ("gmw/en-US" or
    /// "en-US") or a voice name ("English (America)"), any case, with or without a variant
    /// ("en-us+f3").
    public func voice(named name: String) throws -> Voice? {
        try Self.find(name, in: voices)
    }

    /// The voice `name` means among `voices`: MBROLA ones by their file name alone ("mb-en1").
    static func find(_ name: String, in voices: [Voice]) -> Voice? {
        let base = (name.split(separator: "+", maxSplits: 1).first.map(String.init) ?? name).lowercased()
        return voices.first { voice in
            (!voice.isMBROLA && voice.language.lowercased() == base) || voice.name.lowercased() == base
                || voice.identifier.lowercased() == base
                || voice.identifier.split(separator: "/").last.map { $0.lowercased() == base } == true
        }
    }

    /// The error for a voice name that is not usable here: an MBROLA voice says what to install.
    public func unknownVoice(_ name: String, listedBy: String, of session: String? = nil) throws -> HarkError {
        if let mbrola = Self.find(name, in: try mbrolaVoices) { return Self.notInstalled(mbrola) }
        let whose = session.map { " (voice of session \($0))" } ?? ""
        return HarkError.usage("espeak-ng has no voice \"\(name)\"\(whose); \(listedBy) lists them")
    }

    static func notInstalled(_ mbrola: Voice) -> HarkError {
        HarkError.usage("\(mbrola.selector) is an MBROLA voice, which is not installed here; " + MBROLA.installHint(mbrola))
    }

    /// Synthesizes `text`, calling `consume` with each buffer of 16-bit samples as it is made;
    /// `consume` returns false to stop at once.
    public func synthesize(_ text: String, parameters: VoiceParameters,
                           consume: (UnsafeBufferPointer<Int16>) -> Bool) throws {
        try speak(text, parameters: parameters) { samples, _ in consume(samples) }
    }

    /// The same, with the rate of the samples: an MBROLA voice speaks at its database's.
    public func speak(_ text: String, parameters: VoiceParameters,
                      into consume: (_ samples: UnsafeBufferPointer<Int16>, _ sampleRate: Int) -> Bool) throws {
        try lock.withLock {
            _ = try loadLocked()
            try apply(parameters)
            let rate = Int(hark_espeak_voice_rate())
            final class Box {
                let consume: (UnsafeBufferPointer<Int16>, Int) -> Bool
                let rate: Int
                init(_ consume: @escaping (UnsafeBufferPointer<Int16>, Int) -> Bool, rate: Int) {
                    self.consume = consume
                    self.rate = rate
                }
            }
            try withoutActuallyEscaping(consume) { consume in
                let box = Box(consume, rate: rate)
                let result = withExtendedLifetime(box) {
                    hark_espeak_synth(text, { context, samples, count in
                        guard let context, let samples else { return 0 }
                        let box = Unmanaged<Box>.fromOpaque(context).takeUnretainedValue()
                        return box.consume(UnsafeBufferPointer(start: samples, count: Int(count)), box.rate) ? 0 : 1
                    }, Unmanaged.passUnretained(box).toOpaque())
                }
                // EE_INTERNAL_ERROR (-1) is espeak-ng's only failure here; an abort is not one.
                if result == -1 { throw HarkError.unavailable("espeak-ng failed to speak", hint: "try another voice with /voice") }
            }
        }
    }

    /// Sets voice, rate and pitch where they differ from what espeak-ng has. A new voice
    /// resets rate and pitch, so those are set again after it.
    private func apply(_ wanted: VoiceParameters) throws {
        let voice = wanted.voice ?? "en"
        if voice != current.voice {
            // Asked for a missing MBROLA database, espeak-ng would print its own complaint.
            if let mbrola = Self.find(voice, in: loaded?.mbrola ?? []),
               MBROLA.usable([mbrola], dataPath: String(cString: hark_espeak_data_path())).isEmpty {
                throw Self.notInstalled(mbrola)
            }
            guard hark_espeak_set_voice(voice) == 0 else {
                throw HarkError.usage("espeak-ng has no voice \"\(voice)\"; /voice lists the installed ones")
            }
            current = VoiceParameters(voice: voice)
        }
        let rate = wanted.rate ?? 175
        if rate != current.rate {
            _ = hark_espeak_set_rate(Int32(rate))
            current.rate = rate
        }
        let pitch = wanted.pitch ?? 50
        if pitch != current.pitch {
            _ = hark_espeak_set_pitch(Int32(pitch))
            current.pitch = pitch
        }
    }
}
