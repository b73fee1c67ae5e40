import Foundation
import Testing
import TestSupport
@testable import HarkCore

/// PulseAudio's echo canceller, loaded and unloaded by hark on a private server (a null sink
/// and its monitor as the microphone), as `/talk` does for its own streams.
@Suite(.serialized, .enabled(if: TestPulseAudio.isAvailable, "needs pulseaudio; scripts/setup.sh --test installs it"))
struct EchoCancellerTests {
    func modules(_ pulse: TestPulseAudio) async throws -> String {
        let listed = try await Subprocess.run(["/usr/bin/pactl", "list", "short", "modules"], environment: pulse.environment())
        return String(decoding: listed.stdout, as: UTF8.self)
    }

    @Test func itIsLoadedForHarksStreamsAndUnloaded() async throws {
        let pulse = try TestPulseAudio()
        // The microphone it filters, named as a user's PULSE_SOURCE would (a sink's monitor cannot be one).
        let microphone = try pulse.microphone()
        defer { microphone.close() }
        let environment = ["PULSE_SOURCE": TestPulseAudio.microphoneSource]
        let echo = try await offThePool { try EchoCanceller.load(devices: AudioDevices(pulseServer: pulse.server), environment: environment) }
        let sink = try #require(echo.devices.pulseSink), source = try #require(echo.devices.pulseSource)
        #expect(sink != source && sink.hasPrefix("hark_\(getpid())_"))
        let loaded = try await modules(pulse)
        #expect(loaded.contains("module-echo-cancel") && loaded.contains("sink_name=\(sink)") && loaded.contains("source_name=\(source)")
                && loaded.contains("source_master=\(TestPulseAudio.microphoneSource)"), "\(loaded)")
        // hark's streams open on the canceller's sink and source.
        try await offThePool {
            let output = try echo.devices.openOutput(sampleRate: 16000)
            let tone = (0..<1600).map { Int16(8000 * sin(Double($0) * 2 * .pi * 440 / 16000)) }
            try tone.withUnsafeBufferPointer { try output.write($0) }
            output.drain()
            let input = try echo.devices.openInput(sampleRate: 16000)
            var block = [Int16](repeating: 0, count: 800)
            try block.withUnsafeMutableBufferPointer { try input.read(into: $0) }
        }
        let streams = try await Subprocess.run(["/usr/bin/pactl", "list", "sinks"], environment: pulse.environment())
        #expect(String(decoding: streams.stdout, as: UTF8.self).contains("Name: \(sink)"))
        try await offThePool { echo.unload() }
        #expect(try await !modules(pulse).contains("module-echo-cancel"), "unloaded when done")
        // Once: a second unload (the deinit's) does nothing.
        try await offThePool { echo.unload() }
    }

    @Test func noServerIsOneLineSayingWhatToDo() async throws {
        let devices = AudioDevices(pulseServer: "unix:/nonexistent/hark-no-server")
        let error = await #expect(throws: HarkError.self) {
            try await offThePool { _ = try EchoCanceller.load(devices: devices, environment: [:]) }
        }
        #expect(error?.userMessage.hasPrefix("the sound server did not load its echo canceller (module-echo-cancel)") == true,
                "\(String(describing: error?.userMessage))")
        #expect(error?.userMessage.contains("\n") == false)
    }
}
