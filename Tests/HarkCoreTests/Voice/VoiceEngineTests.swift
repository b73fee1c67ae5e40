import Foundation
import Testing
import TestSupport
@testable import HarkCore

/// The real engines, no stand-ins: espeak-ng speaks, libvosk with the Korean model listens.
@Suite(.serialized) struct VoiceEngineTests {
    // Loading the model and recognising take seconds: off the concurrency pool.
    @Test func espeakSpeaksKoreanThatVoskRecognisesWordForWord() async throws {
        let directory = TemporaryDirectory()
        let path = try VoiceTestAssets.koreanWAV("\(VoiceTestAssets.hello). \(VoiceTestAssets.thanks).", in: directory,
                                                 name: "ko.wav")
        let model = try await offThePool { try VoiceTestAssets.koreanModel() }
        #expect(model.sampleRate == 16000)
        // espeak-ng makes 22050 Hz: hark resamples it to the model's 16 kHz on the way in.
        #expect(try WAVReader(path: path).format.sampleRate == 22050)
        let recognition = try await offThePool {
            try Transcriber.transcribe(file: path, model: model, grammar: [VoiceTestAssets.hello, VoiceTestAssets.thanks])
        }
        #expect(recognition.text == "\(VoiceTestAssets.hello) \(VoiceTestAssets.thanks)")
        #expect(recognition.words.map(\.word) == [VoiceTestAssets.hello, VoiceTestAssets.thanks])
        let first = try #require(recognition.words.first)
        let second = try #require(recognition.words.last)
        #expect(first.start < first.end && first.end <= second.start && second.end < 6, "times in order, in the audio")
        #expect(recognition.words.allSatisfy { $0.confidence > 0.5 })
    }

    @Test func anyRateAndChannelCountIsMixedDownAndResampled() async throws {
        let directory = TemporaryDirectory()
        let path = try VoiceTestAssets.koreanWAV(VoiceTestAssets.thanks, in: directory, name: "mono.wav")
        let model = try await offThePool { try VoiceTestAssets.koreanModel() }
        // sox, an independent program, makes the other formats.
        for (name, options) in [("stereo44k24.wav", ["-r", "44100", "-c", "2", "-b", "24"]),
                                ("stereo48kfloat.wav", ["-r", "48000", "-c", "2", "-e", "floating-point", "-b", "32"]),
                                ("mono32k32.wav", ["-r", "32000", "-c", "1", "-b", "32"])] {
            let converted = directory.file(name)
            let sox = try await offThePool { try Subprocess.run(["sox", path] + options + [converted]) }
            try #require(sox.status == 0, "sox is installed by scripts/setup.sh --test: \(String(decoding: sox.stderr, as: UTF8.self))")
            let recognition = try await offThePool {
                try Transcriber.transcribe(file: converted, model: model, grammar: [VoiceTestAssets.hello, VoiceTestAssets.thanks])
            }
            #expect(recognition.text == VoiceTestAssets.thanks, "\(name)")
        }
    }

    @Test func speechIsSoundOfAPlausibleLength() throws {
        let rate = try Espeak.shared.load()
        #expect(rate == 22050)
        let text = "Hello there. This is a short test of speech synthesis."
        let recorder = PCMRecorder(sampleRate: rate)
        try Espeak.shared.synthesize(text, parameters: VoiceParameters(voice: "en-us", rate: 175)) { samples in
            try? recorder.write(samples)
            return true
        }
        let samples = recorder.samples
        let seconds = Double(samples.count) / Double(rate)
        // Ten words at 175 words a minute is about 3.4 s, plus the pause between sentences.
        #expect(seconds > 2 && seconds < 6, "\(seconds) s")
        let level = samples.withUnsafeBufferPointer { PCM.level($0) }
        #expect(level > -35, "speech, not silence: \(level) dBFS")
        let faster = PCMRecorder(sampleRate: rate)
        try Espeak.shared.synthesize(text, parameters: VoiceParameters(voice: "en-us", rate: 350)) { samples in
            try? faster.write(samples)
            return true
        }
        #expect(Double(faster.samples.count) < Double(samples.count) * 0.7, "rate= speeds it up")
    }

    @Test func stoppingASynthesisEndsItAtOnce() throws {
        var buffers = 0
        try Espeak.shared.synthesize(String(repeating: "A long sentence that goes on and on. ", count: 20),
                                     parameters: VoiceParameters()) { _ in
            buffers += 1
            return buffers < 3
        }
        #expect(buffers == 3)
    }

    @Test func voicesAreFoundByLanguageFileOrName() throws {
        let espeak = Espeak.shared
        #expect(try espeak.voices.count > 50)
        #expect(try espeak.voice(named: "en-us")?.language == "en-us")
        #expect(try espeak.voice(named: "EN-US+f3")?.language == "en-us")
        #expect(try espeak.voice(named: "gmw/en-US")?.language == "en-us")
        #expect(try espeak.voice(named: "ko")?.language == "ko")
        #expect(try espeak.voice(named: "elvish") == nil)
        #expect(throws: HarkError.self) {
            try espeak.synthesize("x", parameters: VoiceParameters(voice: "elvish")) { _ in true }
        }
    }

    @Test func aGrammarWordTheModelDoesNotKnowIsNamed() async throws {
        let model = try await offThePool { try VoiceTestAssets.koreanModel() }
        do {
            _ = try VoskRecognizer(model: model, grammar: ["hello"])
            Issue.record("an unknown word was accepted")
        } catch {
            #expect(error.userMessage.contains("does not know the word \"hello\""))
        }
    }
}
