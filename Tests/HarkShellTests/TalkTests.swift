import Foundation
import Testing
import TestSupport
@testable import HarkCore

/// `hark talk` with no microphone and no loudspeaker: a private PulseAudio whose microphone is a
/// pipe the test speaks into (espeak-ng's Korean, recognised with the Korean model and a
/// grammar), whose null sink's monitor hears what hark says, and a loopback chat server.
@Suite(.serialized, .enabled(if: TestPulseAudio.isAvailable, "needs pulseaudio; scripts/setup.sh --test installs it"))
struct TalkTests {
    let hello = VoiceTestAssets.hello, thanks = VoiceTestAssets.thanks
    /// "Stop" in Korean, in the model's vocabulary and told apart from the other two.
    let stop = "정지"

    func home(_ server: TestOpenAIServer) throws -> TestHome {
        TestHome(config: """
            [hark]
            libvosk = \(try VoiceTestAssets.libvoskPath)
            vosk_model = \(try VoiceTestAssets.koreanModelPath)
            vosk_grammar = \(hello), \(thanks), \(stop)
            listen_pause = 1
            talk_stop_word = \(stop)
            cues = off

            [session bot]
            kind = openai
            url = \(server.baseURL)
            """)
    }

    /// An echo with something espeak-ng says in English, so each reply is heard.
    func echoServer() throws -> TestOpenAIServer {
        try TestOpenAIServer { body in
            [.text("You said " + (body["messages"]?.array?.last?["content"]?.string ?? "") + ". That is all."), .done]
        }
    }

    func sentTexts(_ server: TestOpenAIServer) -> [String] {
        server.bodies.compactMap { $0["messages"]?.array?.last?["content"]?.string }
    }

    @Test func threeTurnsAreSentAndHeardAndACoughSendsNothing() async throws {
        let pulse = try TestPulseAudio()
        let microphone = try pulse.microphone()
        defer { microphone.close() }
        let monitor = try pulse.monitor()
        defer { monitor.stop() }
        let server = try echoServer()
        let home = try self.home(server)
        let process = try ChildProcess([BuiltProducts.hark, "talk", "-s", "bot", "--turns", "3"],
                                       environment: pulse.environmentWithMicrophone(home.environment))
        defer { process.signal(SIGKILL) }
        let cough = (0..<Int(0.15 * Double(MicrophoneFeed.rate))).map { index in Int16(truncatingIfNeeded: (index * 7919) % 16000 - 8000) }
        let turns: [[Int16]] = [try MicrophoneFeed.korean(hello), try MicrophoneFeed.korean(thanks),
                                try MicrophoneFeed.korean("\(hello). \(thanks).")]
        let expected = [hello, thanks, "\(hello) \(thanks)"]

        try await process.waitFor(stderr: "listening…", count: 1)
        // A cough, then quiet for longer than the pause that sends: were it a message, it would go now.
        microphone.say(cough)
        microphone.silence(seconds: 3)
        for (index, speech) in turns.enumerated() {
            microphone.say(speech)
            try await microphone.waitUntilSaid()
            let spoken = Date()
            if index < turns.count - 1 {
                // The reply has been read out when hark listens again.
                try await process.waitFor(stderr: "listening…", count: index + 2)
            } else {
                #expect(try await process.waitForExit() == 0, "\(process.stderr)")
            }
            #expect(sentTexts(server) == Array(expected.prefix(index + 1)), "\(process.stderr)")
            #expect(monitor.loudest(from: spoken, to: Date()) > -45, "reply \(index + 1) was heard on the sink")
        }
        #expect(process.stdout == expected.map { "You said \($0). That is all.\n" }.joined())
        #expect(expected.allSatisfy { process.stderr.contains("› \($0)\n") }, "\(process.stderr)")
        #expect(process.stderr.contains("interrupting by voice needs headphones or an echo canceller"))

        // Every turn is an ordinary message and reply in the history.
        let history = try await offThePool {
            try Subprocess.run([BuiltProducts.hark, "history", "-s", "bot", "--json"], environment: home.environment)
        }
        let rows = String(decoding: history.stdout, as: UTF8.self).split(separator: "\n").map { try? JSON.parse(String($0)) }
        #expect(rows.compactMap { $0?["role"]?.string } == ["user", "assistant", "user", "assistant", "user", "assistant"])
        #expect(rows.compactMap { $0?["role"]?.string == "user" ? $0?["text"]?.string : nil } == expected)
    }

    @Test func theStopPhraseEndsTheLoopAndSendsNothing() async throws {
        let pulse = try TestPulseAudio()
        let microphone = try pulse.microphone()
        defer { microphone.close() }
        let server = try echoServer()
        let home = try self.home(server)
        let process = try ChildProcess([BuiltProducts.hark, "talk", "-s", "bot"],
                                       environment: pulse.environmentWithMicrophone(home.environment))
        defer { process.signal(SIGKILL) }
        try await process.waitFor(stderr: "listening…")
        microphone.say(try MicrophoneFeed.korean(stop))
        #expect(try await process.waitForExit() == 0, "\(process.stderr)")
        #expect(process.stderr.hasSuffix("stopped talking\n"), "\(process.stderr)")
        #expect(server.bodies.isEmpty)
        #expect(process.stdout.isEmpty)
    }

    @Test func ctrlCWhileListeningEndsItAsInterrupted() async throws {
        let pulse = try TestPulseAudio()
        let microphone = try pulse.microphone()
        defer { microphone.close() }
        let server = try echoServer()
        let home = try self.home(server)
        let process = try ChildProcess([BuiltProducts.hark, "talk", "-s", "bot"],
                                       environment: pulse.environmentWithMicrophone(home.environment))
        defer { process.signal(SIGKILL) }
        try await process.waitFor(stderr: "listening…")
        process.signal(SIGINT)
        #expect(try await process.waitForExit() == 130, "\(process.stderr)")
        #expect(server.bodies.isEmpty)
    }

    @Test func badTurnsIsOneUsageLine() async throws {
        let server = try echoServer()
        let home = try self.home(server)
        let run = try await offThePool {
            try Subprocess.run([BuiltProducts.hark, "talk", "-s", "bot", "--turns", "zero"], environment: home.environment)
        }
        #expect(run.status == 2)
        #expect(String(decoding: run.stderr, as: UTF8.self) == "hark: --turns needs a whole number of messages, 1 or more\n")
    }
}
