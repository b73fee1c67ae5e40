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

    /// Half duplex unless a test says otherwise (`echoCancel`): the tests of the loop itself do
    /// not depend on the sound server's echo canceller, which records from the microphone too.
    func home(_ server: TestOpenAIServer, cues: Bool = false, echoCancel: String = "off", extra: String = "") throws -> TestHome {
        TestHome(config: """
            [hark]
            default = bot
            libvosk = \(try VoiceTestAssets.libvoskPath)
            vosk_model = \(try VoiceTestAssets.koreanModelPath)
            vosk_grammar = \(hello), \(thanks), \(stop)
            listen_pause = 1
            talk_stop_word = \(stop)
            cues = \(cues ? "on" : "off")
            echo_cancel = \(echoCancel)
            \(extra)

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
        let talk = try await talking(["--turns", "3"])
        let (microphone, server, home, process) = (talk.microphone, talk.server, talk.home, talk.process)
        defer { process.signal(SIGKILL); microphone.close() }
        let monitor = try talk.pulse.monitor()
        defer { monitor.stop() }
        let cough = (0..<Int(0.15 * Double(MicrophoneFeed.rate))).map { index in Int16(truncatingIfNeeded: (index * 7919) % 16000 - 8000) }
        let turns: [[Int16]] = [try MicrophoneFeed.korean(hello), try MicrophoneFeed.korean(thanks),
                                try MicrophoneFeed.korean("\(hello). \(thanks).")]
        let expected = [hello, thanks, "\(hello) \(thanks)"]

        // A cough, then quiet for longer than the pause that sends: were it a message, it would go now.
        microphone.say(cough)
        microphone.silence(seconds: 3)
        for (index, speech) in turns.enumerated() {
            // From the turn's start: the reply plays after the speech (cues are off here, and the
            // last reply ended before), and a test resumed late on a loaded machine may come back
            // only after the reply has played.
            let spoken = Date()
            microphone.say(speech)
            try await microphone.waitUntilSaid()
            if index < turns.count - 1 {
                // The reply has been read out when hark listens again.
                try await process.waitFor(stderr: "listening…", count: index + 2)
            } else {
                #expect(try await process.waitForExit() == 0, "\(process.stderr)")
            }
            #expect(sentTexts(server) == Array(expected.prefix(index + 1)), "\(process.stderr)")
            #expect(try await monitor.hears(above: -45, after: spoken), "reply \(index + 1) was heard on the sink")
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

    /// `hark talk` with its microphone, the echo server and the config, listening.
    struct Talking {
        let pulse: TestPulseAudio
        let microphone: MicrophoneFeed
        let server: TestOpenAIServer
        let home: TestHome
        let process: ChildProcess
    }

    func talking(_ arguments: [String] = [], extra: String = "", ready: String = "listening…", echoCancel: String = "off",
                 server: TestOpenAIServer? = nil, environment: [String: String] = [:]) async throws -> Talking {
        let pulse = try TestPulseAudio()
        let microphone = try pulse.microphone()
        let server = try server ?? echoServer()
        let home = try self.home(server, echoCancel: echoCancel, extra: extra)
        let process = try ChildProcess([BuiltProducts.hark, "talk", "-s", "bot"] + arguments,
                                       environment: pulse.environmentWithMicrophone(home.environment).merging(environment) { $1 })
        try await process.waitFor(stderr: ready)
        return Talking(pulse: pulse, microphone: microphone, server: server, home: home, process: process)
    }

    /// With `--wake` nothing is heard as a message until the wake phrase ("hello" here, a word
    /// the Korean model knows): "thanks" said before it is not sent, "thanks" said after it is.
    @Test func theWakePhraseStartsATurn() async throws {
        let talk = try await talking(["--wake", "--turns", "1"], extra: "wake_word = \(hello)", ready: "waiting for \"\(hello)\"…")
        let (microphone, process) = (talk.microphone, talk.process)
        defer { process.signal(SIGKILL); microphone.close() }
        let monitor = try talk.pulse.monitor()
        defer { monitor.stop() }
        microphone.say(try MicrophoneFeed.korean(thanks))
        microphone.silence(seconds: 2)
        microphone.say(try MicrophoneFeed.korean(hello))
        try await process.waitFor(stderr: "listening…")
        #expect(!process.stderr.contains("› "), "nothing was sent before the wake phrase: \(process.stderr)")
        let spoken = Date()
        microphone.say(try MicrophoneFeed.korean(thanks))
        #expect(try await process.waitForExit() == 0, "\(process.stderr)")
        #expect(sentTexts(talk.server) == [thanks], "\(process.stderr)")
        #expect(process.stdout == "You said \(thanks). That is all.\n")
        #expect(try await monitor.hears(above: -45, after: spoken), "the reply was heard on the sink")
        let lines = process.stderr.split(separator: "\n").map(String.init)
        #expect(lines.firstIndex(of: "waiting for \"\(hello)\"…")! < lines.firstIndex(of: "listening…")!)
    }

    @Test func aWakeWordTheModelDoesNotKnowIsOneLine() async throws {
        let talk = try await talking(["--wake"], extra: "wake_word = hey hark", ready: "hark: ")
        defer { talk.process.signal(SIGKILL); talk.microphone.close() }
        #expect(try await talk.process.waitForExit() == 2, "\(talk.process.stderr)")
        // Said before the conversation starts, as one line.
        #expect(talk.process.stderr == "hark: the Vosk model at \(try VoiceTestAssets.koreanModelPath) does not know the word "
            + "\"hey\"; use words of its language\n")
        #expect(talk.server.bodies.isEmpty)
    }

    @Test func theStopPhraseEndsTheLoopAndSendsNothing() async throws {
        let talk = try await talking()
        defer { talk.process.signal(SIGKILL); talk.microphone.close() }
        talk.microphone.say(try MicrophoneFeed.korean(stop))
        #expect(try await talk.process.waitForExit() == 0, "\(talk.process.stderr)")
        #expect(talk.process.stderr.hasSuffix("stopped talking\n"), "\(talk.process.stderr)")
        #expect(talk.server.bodies.isEmpty)
        #expect(talk.process.stdout.isEmpty)
    }

    @Test func ctrlCWhileListeningEndsItAsInterrupted() async throws {
        let talk = try await talking()
        defer { talk.process.signal(SIGKILL); talk.microphone.close() }
        talk.process.signal(SIGINT)
        #expect(try await talk.process.waitForExit() == 130, "\(talk.process.stderr)")
        #expect(talk.process.stderr.hasSuffix("stopped talking\n"), "\(talk.process.stderr)")
        #expect(talk.server.bodies.isEmpty)
    }

    @Test(.enabled(if: TerminalDriver.isAvailable, "needs tmux; scripts/setup.sh --test installs it"))
    func talkInTheShellShowsEachStateAndEscEndsIt() async throws {
        let pulse = try TestPulseAudio()
        let microphone = try pulse.microphone()
        defer { microphone.close() }
        let monitor = try pulse.monitor()
        defer { monitor.stop() }
        let server = try echoServer()
        let home = try self.home(server, cues: true)
        let terminal = try home.terminal(base: pulse.environmentWithMicrophone(home.environment))
        defer { try? terminal.close() }
        try await terminal.waitFor(text: "bot ›")
        let started = Date()
        try terminal.enter("/talk")
        func lastLine(_ screen: String) -> String {
            screen.split(separator: "\n").map { $0.trimmingCharacters(in: .whitespaces) }.last { !$0.isEmpty } ?? ""
        }
        try await terminal.waitFor("the meter") { lastLine($0).hasPrefix("● ") && lastLine($0).hasSuffix(" listening") }
        // The listening tone played before the microphone opened (nothing else sounds by then).
        #expect(try await monitor.hears(above: -30, after: started), "the listening cue")
        microphone.say(try MicrophoneFeed.korean(hello))
        // The words under the meter, the message sent, the reply printed while it is read aloud…
        try await terminal.waitFor("the words heard") { lastLine($0).hasPrefix("● ") && lastLine($0).hasSuffix(" \(hello)") }
        try await terminal.waitFor("speaking") { $0.contains("› \(hello)\nYou said \(hello). That is all.") && lastLine($0).hasPrefix("◍ speaking") }
        // …and hark listens again once it has been heard.
        try await terminal.waitFor("listening again") { $0.contains("That is all.") && lastLine($0).hasSuffix(" listening") }
        let stopping = Date()
        try terminal.press("Escape")
        try await terminal.waitFor("the prompt") { $0.contains("stopped talking") && lastLine($0).hasSuffix("›") }
        #expect(try await monitor.hears(above: -30, after: stopping), "the stopped cue")
        #expect(sentTexts(server) == [hello])
        // The message is in the input history, as one typed.
        try terminal.press("Up")
        try await terminal.waitFor("the message recalled") { lastLine($0).hasSuffix("› \(hello)") }
    }

    /// F5 pauses listening (the microphone is closed: what is said meanwhile is not heard) and
    /// resumes it; Ctrl-G does the same.
    @Test(.enabled(if: TerminalDriver.isAvailable, "needs tmux; scripts/setup.sh --test installs it"))
    func f5PausesAndResumesListeningInTheShell() async throws {
        let pulse = try TestPulseAudio()
        let microphone = try pulse.microphone()
        defer { microphone.close() }
        let server = try echoServer()
        let home = try self.home(server)
        let terminal = try home.terminal(base: pulse.environmentWithMicrophone(home.environment))
        defer { try? terminal.close() }
        try await terminal.waitFor(text: "bot ›")
        try terminal.enter("/talk")
        func lastLine(_ screen: String) -> String {
            screen.split(separator: "\n").map { $0.trimmingCharacters(in: .whitespaces) }.last { !$0.isEmpty } ?? ""
        }
        try await terminal.waitFor("the meter") { lastLine($0).hasPrefix("● ") && lastLine($0).hasSuffix(" listening") }
        #expect(try recordingStreams(pulse) == 1)
        try terminal.press("F5")
        try await terminal.waitFor("paused") { lastLine($0).hasPrefix("‖ paused: F5 or Ctrl-G listens again") }
        // The microphone is closed while paused. (Speech played into the test's pipe microphone
        // now would wait in the pipe and be heard on resuming, which a real one does not do.)
        #expect(try recordingStreams(pulse) == 0)
        try terminal.press("C-g")
        try await terminal.waitFor("listening again") { lastLine($0).hasPrefix("● ") && lastLine($0).hasSuffix(" listening") }
        #expect(try recordingStreams(pulse) == 1)
        microphone.say(try MicrophoneFeed.korean(thanks))
        try await terminal.waitFor("the reply") { $0.contains("You said \(thanks). That is all.") && lastLine($0).hasSuffix(" listening") }
        try terminal.press("Escape")
        try await terminal.waitFor("the prompt") { $0.contains("stopped talking") && lastLine($0).hasSuffix("›") }
        #expect(sentTexts(server) == [thanks])
    }

    /// How many streams record from the sound server (only hark's in that test).
    func recordingStreams(_ pulse: TestPulseAudio) throws -> Int {
        let listed = try Subprocess.run(["/usr/bin/pactl", "list", "short", "source-outputs"], environment: pulse.environment())
        return String(decoding: listed.stdout, as: UTF8.self).split(separator: "\n").count
    }

    /// SIGTERM while a reply is read aloud ends the conversation and the shell with it.
    @Test(.enabled(if: TerminalDriver.isAvailable, "needs tmux; scripts/setup.sh --test installs it"))
    func sigtermWhileAReplyIsReadEndsTheShell() async throws {
        let pulse = try TestPulseAudio()
        let microphone = try pulse.microphone()
        defer { microphone.close() }
        let server = try TestOpenAIServer { _ in
            [.text(String(repeating: "This reply takes a good while to read out loud. ", count: 8)), .done]
        }
        let home = try self.home(server)
        let terminal = try home.terminal(base: pulse.environmentWithMicrophone(home.environment))
        defer { try? terminal.close() }
        try await terminal.waitFor(text: "bot ›")
        try terminal.enter("/talk")
        try await terminal.waitFor("the meter") { $0.contains(" listening") }
        microphone.say(try MicrophoneFeed.korean(hello))
        try await terminal.waitFor("speaking") { $0.contains("◍ speaking") }
        let pid = try #require(try terminal.programPID())
        kill(pid, SIGTERM)
        #expect(try await terminal.waitForExit() == 143)
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
