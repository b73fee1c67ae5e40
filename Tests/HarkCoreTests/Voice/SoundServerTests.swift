import Foundation
import Testing
import TestSupport
@testable import HarkCore

/// Voice through a real sound server: a private PulseAudio with a null sink (no sound card
/// needed), whose monitor is the default source. What hark plays can be recorded back, and a
/// WAV played into the sink is what hark's microphone hears.
@Suite(.serialized, .enabled(if: TestPulseAudio.isAvailable, "needs pulseaudio and paplay; scripts/setup.sh --test installs them"))
struct SoundServerTests {
    /// Records the default source on a thread of its own until told to stop.
    func record(_ devices: AudioDevices, started: Gate, done: Gate, into samples: Samples) {
        let thread = Thread {
            do {
                let source = try devices.openInput(sampleRate: 16000)
                started.open()
                var block = [Int16](repeating: 0, count: 800)
                while !samples.isComplete {
                    try block.withUnsafeMutableBufferPointer { try source.read(into: $0) }
                    samples.append(block)
                }
            } catch {
                samples.fail(error)
                started.open()
            }
            done.open()
        }
        thread.start()
    }

    final class Samples: @unchecked Sendable {
        private let lock = NSLock()
        private var values: [Int16] = []
        private var remaining: Int?
        private(set) var error: Error?
        func append(_ block: [Int16]) {
            lock.withLock {
                values += block
                if let left = remaining { remaining = left - 1 }
            }
        }
        func fail(_ error: Error) { lock.withLock { self.error = error } }
        /// Records this many more 50 ms blocks, then stops.
        func stop(afterMoreBlocks count: Int) { lock.withLock { remaining = count } }
        var isComplete: Bool { lock.withLock { remaining.map { $0 <= 0 } ?? false } }
        var all: [Int16] { lock.withLock { values } }
    }

    @Test func speechGoesToTheDefaultOutput() async throws {
        let pulse = try TestPulseAudio()
        let devices = AudioDevices(pulseServer: pulse.server)
        let recorded = Samples()
        let started = Gate(), done = Gate()
        record(devices, started: started, done: done, into: recorded)
        await started.opened()
        let log = SpeechLog(expecting: 1)
        let speaker = Speaker(openSink: { rate in try devices.openOutput(sampleRate: rate) }, onEvent: { log.record($0) })
        defer { speaker.close() }
        speaker.say("Hello from hark.", parameters: VoiceParameters(voice: "en-us"))
        #expect(await log.allFinished.opened(within: 30))
        #expect(log.sentencesFinished == ["Hello from hark."])
        // What was written plays out of the device's buffer within a tenth of a second.
        recorded.stop(afterMoreBlocks: 10)
        #expect(await done.opened(within: 30))
        #expect(recorded.error == nil, "\(String(describing: recorded.error))")
        // Loud 50 ms blocks in the recording: the sentence was heard in the sink.
        let blocks = stride(from: 0, to: recorded.all.count - 800, by: 800).map { start in
            recorded.all[start..<(start + 800)].withUnsafeBufferPointer { PCM.level($0) }
        }
        #expect(blocks.filter { $0 > -40 }.count >= 5, "levels: \(blocks.map { Int($0) })")
    }

    @Test func muteStopsSpeechAtOnce() async throws {
        let pulse = try TestPulseAudio()
        let devices = AudioDevices(pulseServer: pulse.server)
        let log = SpeechLog(expecting: 3)
        let speaker = Speaker(openSink: { rate in try devices.openOutput(sampleRate: rate) }, onEvent: { log.record($0) })
        defer { speaker.close() }
        let long = String(repeating: "This sentence takes a while to say out loud. ", count: 4)
        for _ in 0..<3 { speaker.say(long, parameters: VoiceParameters()) }
        #expect(await log.firstStarted.opened(within: 30))
        #expect(speaker.isSpeaking)
        speaker.stop()
        #expect(await log.interrupted.opened(within: 5))
        // Cut off, not played out: played at the sound card's pace a sentence lasts seconds,
        // and none of the three was finished. (How soon it stops is the benchmark's business,
        // not a timed assertion's: this one failed on a loaded machine.)
        #expect(log.sentencesFinished.isEmpty)
        #expect(!speaker.isSpeaking)
    }

    @Test func dictationHearsTheMicrophone() async throws {
        let pulse = try TestPulseAudio()
        let directory = TemporaryDirectory()
        let wav = try VoiceTestAssets.koreanWAV("\(VoiceTestAssets.hello). \(VoiceTestAssets.thanks).", in: directory,
                                                name: "said.wav")
        let model = try await offThePool { try VoiceTestAssets.koreanModel() }
        // A 2 s pause: on a loaded run the sound server's playback can stall for a second
        // between the two words, and a 1 s pause ended dictation after the first.
        let dictation = Dictation(model: model, grammar: [VoiceTestAssets.hello, VoiceTestAssets.thanks], pause: 2.0,
                                  devices: AudioDevices(pulseServer: pulse.server))
        let listening = Gate(), ended = Gate()
        let events = EventLog()
        dictation.start { event in
            events.append(event)
            if case .listening = event { listening.open() }
            if case .ended = event { ended.open() }
            if case .failed = event { listening.open(); ended.open() }
        }
        #expect(await listening.opened(within: 30))
        try await pulse.play(wav)
        #expect(await ended.opened(within: 30), "a pause after the words ends dictation")
        let all = events.all
        guard case .ended(let recognition, let reason) = all.last else {
            Issue.record("no end: \(all)")
            return
        }
        #expect(reason == .pause)
        #expect(recognition.text == "\(VoiceTestAssets.hello) \(VoiceTestAssets.thanks)")
        // Partial words were reported while speech went on, before the end.
        let partials = all.compactMap { event -> String? in
            if case .heard(let text, _) = event, !text.isEmpty { return text }
            return nil
        }
        #expect(partials.first?.hasPrefix(VoiceTestAssets.hello) == true, "\(partials.prefix(3))")
        let levels = all.compactMap { event -> Double? in
            if case .heard(_, let level) = event { return level }
            return nil
        }
        #expect(levels.contains { $0 > 0.3 } && levels.contains { $0 < 0.05 }, "the meter follows the sound")
    }

    @Test func withoutASoundServerTheProblemIsOneLine() throws {
        let devices = AudioDevices(pulseServer: "unix:/nonexistent/hark-no-server")
        do {
            _ = try devices.openInput(sampleRate: 16000)
            Issue.record("a microphone opened without a server")
        } catch {
            let message = error.userMessage
            #expect(message.hasPrefix("no microphone: PulseAudio: "))
            #expect(message.contains("start PulseAudio or PipeWire"))
            #expect(!message.contains("\n"))
        }
    }
}

final class EventLog: @unchecked Sendable {
    private let lock = NSLock()
    private var events: [DictationEvent] = []
    func append(_ event: DictationEvent) { lock.withLock { events.append(event) } }
    var all: [DictationEvent] { lock.withLock { events } }
}
