import Foundation
import Testing
import TestSupport
@testable import HarkCore

/// Talking over a reply in `hark talk`: with the sound server's echo canceller the microphone
/// stays open while hark speaks and speech silences the reply; without it hark says once that
/// it does not listen while it speaks, and it never hears itself.
@Suite(.serialized, .enabled(if: TestPulseAudio.isAvailable, "needs pulseaudio; scripts/setup.sh --test installs it"))
struct TalkBargeInTests {
    let hello = VoiceTestAssets.hello, thanks = VoiceTestAssets.thanks
    let talk = TalkTests()

    /// A reply of twelve sentences (half a minute read out) to the first message, an echo to the others.
    static let long = (1...12).map { "Sentence number \($0) of a long answer, read out slowly." }.joined(separator: " ")

    func trace(_ path: String) throws -> [JSON] {
        try String(contentsOfFile: path, encoding: .utf8).split(separator: "\n").compactMap { try? JSON.parse(String($0)) }
    }

    @Test func speakingOverAReplySilencesItAndIsTheNextMessage() async throws {
        let hello = self.hello
        let server = try TestOpenAIServer { body in
            let said = body["messages"]?.array?.last?["content"]?.string ?? ""
            return [.text(said == hello ? Self.long : "You said \(said). That is all."), .done]
        }
        let directory = TemporaryDirectory("hark-barge")
        let tracePath = directory.file("trace")
        let running = try await talk.talking(["--turns", "2"], echoCancel: "on", server: server,
                                             environment: ["HARK_VOICE_TRACE": tracePath])
        let (microphone, process) = (running.microphone, running.process)
        defer { process.signal(SIGKILL); microphone.close() }
        let monitor = try running.pulse.monitor()
        defer { monitor.stop() }
        #expect(process.stderr.contains("hark listens while it speaks, through the sound server's echo canceller"), "\(process.stderr)")
        #expect(!process.stderr.contains("needs headphones"))

        let spoken = Date()
        microphone.say(try MicrophoneFeed.korean(hello))
        #expect(try await monitor.hears(above: -45, after: spoken), "the long reply is being read")
        let barged = Date()
        microphone.say(try MicrophoneFeed.korean(thanks))
        // The sink falls silent (a second without sound: longer than espeak-ng's pause between sentences).
        let quiet = try await monitor.quiet(below: -60, after: barged, lasting: 1)
        let silenced = try #require(quiet, "the reply fell silent")
        print("barge-in: speech played into the microphone → the sink silent: \(Int(silenced.timeIntervalSince(barged) * 1000)) ms")
        #expect(try await process.waitForExit() == 0, "\(process.stderr)")
        // What was said over the reply is the next message. Through the echo canceller, whose
        // WebRTC filter damps the first tenths of a second of speech over playback, the grammar
        // recogniser sometimes hears the word twice ("감사합니다 감사합니다"): only it counts.
        let sent = talk.sentTexts(server)
        #expect(sent.count == 2 && sent.first == hello, "\(process.stderr)")
        let next = sent.last ?? ""
        #expect(!next.isEmpty && next.split(separator: " ").allSatisfy { $0 == thanks }, "\(sent)")
        // The reply's text is whole (printed and kept); only its reading stopped, long before its end.
        #expect(process.stdout == Self.long + "\nYou said \(next). That is all.\n")
        let events = try trace(tracePath)
        let heard = events.filter { $0["event"]?.string == "audio" }.compactMap { $0["text"]?.string }
        #expect(heard.contains { $0.hasPrefix("Sentence number 1 ") }, "\(heard)")
        #expect(!heard.contains { $0.hasPrefix("Sentence number 12 ") }, "the reply's last sentence was never played: \(heard)")
        #expect(heard.suffix(2) == ["You said \(next).", "That is all."], "the next reply was read: \(heard)")
        #expect(events.contains { $0["event"]?.string == "barge-in" })
        // The canceller hark loaded is gone with it.
        let modules = try await offThePool {
            try Subprocess.run(["/usr/bin/pactl", "list", "short", "modules"], environment: running.pulse.environment())
        }
        #expect(!String(decoding: modules.stdout, as: UTF8.self).contains("module-echo-cancel"))
    }

    /// The microphone here is the sink's monitor: hark hears all it plays, as a laptop's
    /// microphone hears its loudspeakers. The reply is the message said back in Korean, which
    /// hark would take for a new message if it listened while speaking.
    @Test func withoutTheEchoCancellerItSaysSoOnceAndNeverHearsItself() async throws {
        let pulse = try TestPulseAudio()
        let server = try TestOpenAIServer { body in
            [.text((body["messages"]?.array?.last?["content"]?.string ?? "") + "."), .done]
        }
        let home = try talk.home(server, extra: "voice = ko\nrate = 100")
        var environment = pulse.environment(home.environment)
        environment["PULSE_SOURCE"] = "hark_test.monitor"
        let process = try ChildProcess([BuiltProducts.hark, "talk", "-s", "bot", "--turns", "2"], environment: environment)
        defer { process.signal(SIGKILL) }
        let directory = TemporaryDirectory("hark-half-duplex")
        try await process.waitFor(stderr: "listening…")
        try await pulse.play(try VoiceTestAssets.koreanWAV(hello, in: directory, name: "hello.wav"))
        // Its reply, "안녕하세요.", has been read out when hark listens again.
        try await process.waitFor(stderr: "listening…", count: 2)
        #expect(talk.sentTexts(server) == [hello], "\(process.stderr)")
        try await pulse.play(try VoiceTestAssets.koreanWAV(thanks, in: directory, name: "thanks.wav"))
        #expect(try await process.waitForExit() == 0, "\(process.stderr)")
        #expect(talk.sentTexts(server) == [hello, thanks], "its own voice was never sent: \(process.stderr)")
        #expect(process.stdout == "\(hello).\n\(thanks).\n")
        let note = "hark does not listen while it speaks, so it never hears itself; to interrupt a reply press Ctrl-C "
            + "(interrupting by voice needs headphones or an echo canceller)\n"
        #expect(process.stderr.components(separatedBy: note).count == 2, "said once: \(process.stderr)")
    }
}
