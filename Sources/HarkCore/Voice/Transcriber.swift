import FoundationEssentials
import Glibc

/// Turns a WAV file into text: read block by block, mixed down to mono, resampled to the
/// model's rate, fed to Vosk; each utterance's result is kept in order.
public enum Transcriber {
    /// A quarter of a second per block at 16 kHz (Vosk's own examples feed 4000 frames too).
    static let blockFrames = 4000

    public static func transcribe(file path: String, model: VoskModel, grammar: [String] = []) throws -> Recognition {
        let reader = try WAVReader(path: path)
        let recognizer = try VoskRecognizer(model: model, grammar: grammar)
        var resampler = Resampler(from: reader.format.sampleRate, to: model.sampleRate)
        var recognition = Recognition()
        // Each block's times are relative to the stream start, which is what Vosk reports.
        func feed(_ samples: [Float]) {
            guard !samples.isEmpty else { return }
            if recognizer.accept(PCM.int16(samples)) { recognition.append(recognizer.result()) }
        }
        let inputBlock = max(1, blockFrames * reader.format.sampleRate / model.sampleRate)
        while true {
            let block = reader.readMono(frames: inputBlock)
            if block.isEmpty { break }
            feed(resampler.process(block))
        }
        feed(resampler.finish())
        recognition.append(recognizer.finalResult())
        return recognition
    }
}
