import Foundation
import Testing
import TestSupport
@testable import HarkCore

/// `tts_command`: speech from a program, fed the text on stdin. The programs are small scripts
/// under Tests/Fixtures/tts that run the real espeak-ng, writing a WAV stream or (as Piper's
/// `--output-raw` does) raw 16-bit mono samples.
@Suite(.serialized) struct CommandSpeechTests {
    static let fixtures = VoiceTestAssets.root + "/Tests/Fixtures/tts"
    let wavCommand = fixtures + "/espeak_wav.sh"
    let rawCommand = fixtures + "/espeak_raw.sh"

    /// What a command says, recorded in memory at the rate it gave, with the events.
    func speak(_ text: String, _ parameters: VoiceParameters) async -> (recorded: [PCMRecorder], log: SpeechLog, failure: HarkError?) {
        let sinks = Locked<[PCMRecorder]>([])
        let failure = Locked<HarkError?>(nil)
        let log = SpeechLog(expecting: 1)
        let speaker = Speaker(openSink: { rate in
            let made = PCMRecorder(sampleRate: rate)
            sinks.update { $0.append(made) }
            return made
        }, onEvent: { event in
            if case .failed(let error) = event { failure.update { $0 = error } }
            log.record(event)
        })
        defer { speaker.close() }
        speaker.say(text, parameters: parameters)
        _ = await log.allFinished.opened(within: 60)
        return (sinks.read { $0 }, log, failure.read { $0 })
    }

    @Test func aWAVStreamIsSpokenAtTheRateItsHeaderGives() async throws {
        let direct = try await offThePool { () throws -> [Int16] in
            var samples: [Int16] = []
            try Espeak.shared.synthesize("Hello from a command.", parameters: VoiceParameters(voice: "en")) { samples += $0; return true }
            return samples
        }
        let (recorded, log, failure) = await speak("Hello from a command.", VoiceParameters(command: wavCommand))
        #expect(failure == nil, "\(String(describing: failure))")
        #expect(log.sentencesFinished == ["Hello from a command."])
        #expect(recorded.map(\.sampleRate) == [22050])
        let samples = recorded.first?.samples ?? []
        // The same speech as espeak-ng's own, give or take the trailing silence it pads.
        #expect(abs(samples.count - direct.count) < 22050 / 2, "\(samples.count) against \(direct.count)")
        #expect(samples.withUnsafeBufferPointer { PCM.level($0) } > -30)
    }

    @Test func rawSamplesAreSpokenAtTtsRate() async throws {
        let (recorded, _, failure) = await speak("Raw samples.", VoiceParameters(command: rawCommand, commandRate: 22050))
        #expect(failure == nil, "\(String(describing: failure))")
        #expect(recorded.map(\.sampleRate) == [22050])
        #expect((recorded.first?.samples.count ?? 0) > 22050 / 2)
    }

    @Test func rawSamplesWithoutTtsRateAreOneLineSayingWhatToSet() async throws {
        let (recorded, _, failure) = await speak("Raw samples.", VoiceParameters(command: rawCommand))
        #expect(recorded.isEmpty)
        #expect(failure?.userMessage == "tts_command's output is not WAV; if it writes raw 16-bit mono samples, "
            + "set tts_rate to their sample rate")
    }

    @Test func aFailingCommandIsNamedWithWhatItSaid() async throws {
        let (_, _, failure) = await speak("Anything.", VoiceParameters(command: "echo 'no model at /x' >&2; exit 3"))
        #expect(failure?.userMessage == "tts_command failed (exit status 3): no model at /x")
        let (_, _, silent) = await speak("Anything.", VoiceParameters(command: "cat >/dev/null"))
        #expect(silent?.userMessage == "tts_command wrote no audio")
    }

    @Test func stoppingKillsTheCommand() async throws {
        let directory = TemporaryDirectory()
        let fifo = directory.file("pid")
        #expect(mkfifo(fifo, 0o600) == 0)
        let log = SpeechLog(expecting: 1)
        let speaker = Speaker(openSink: { PCMRecorder(sampleRate: $0) }, onEvent: { log.record($0) })
        defer { speaker.close() }
        // A slow engine: it has said nothing yet when speech is stopped. Reading the FIFO waits
        // for it to have started.
        speaker.say("Never heard.", parameters: VoiceParameters(command: "echo $$ > \(fifo); exec sleep 60"))
        let pid = try await offThePool { () -> pid_t? in
            let reader = open(fifo, O_RDONLY)
            defer { close(reader) }
            var bytes = [UInt8](repeating: 0, count: 32)
            let count = read(reader, &bytes, bytes.count)
            return pid_t(String(decoding: bytes.prefix(max(0, count)), as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines))
        }
        #expect(pid != nil)
        guard let pid else { return }
        speaker.stop()
        #expect(await log.interrupted.opened(within: 30))
        #expect(log.sentencesCut == ["Never heard."])
        // The command (the shell exec'd into sleep) is gone, reaped by hark.
        #expect(kill(pid, 0) != 0)
    }

    @Test(.enabled(if: TestPulseAudio.isAvailable, "needs pulseaudio; scripts/setup.sh --test installs it"))
    func commandSpeechReachesTheSoundServer() async throws {
        let pulse = try TestPulseAudio()
        let devices = AudioDevices(pulseServer: pulse.server)
        let monitor = try pulse.monitor()
        defer { monitor.stop() }
        let log = SpeechLog(expecting: 1)
        let speaker = Speaker(openSink: { try devices.openOutput(sampleRate: $0) }, onEvent: { log.record($0) })
        defer { speaker.close() }
        let start = Date()
        speaker.say("Hello from a command.", parameters: VoiceParameters(command: wavCommand))
        #expect(await log.allFinished.opened(within: 60))
        #expect(log.sentencesFinished == ["Hello from a command."])
        #expect(try await monitor.hears(above: -40, after: start), "the speech was heard on the null sink")
    }
}
