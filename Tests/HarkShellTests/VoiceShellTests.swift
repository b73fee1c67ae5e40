import Foundation
import Testing
import TestSupport
@testable import HarkCore

/// Voice in the real shell, in a real terminal, with a private PulseAudio as the sound card:
/// dictation into the input line, command words, replies read aloud, /mute, and a shell that
/// keeps working when a voice part is missing.
@Suite(.serialized, .enabled(if: TerminalDriver.isAvailable, "needs tmux; scripts/setup.sh --test installs it"))
struct VoiceShellTests {
    func terminal(_ home: TestHome, pulse: TestPulseAudio?, editrc: String = "") throws -> TerminalDriver {
        try home.terminal(editrc: editrc, base: pulse?.environment(home.environment))
    }

    /// Starts dictation with `start` and waits for the meter. Dictation ends by itself after 10 s
    /// of silence; in a fully parallel test run this test has been starved for longer than that
    /// (the meter came and went unseen, then "(heard nothing)"), so it listens again, up to 5 times.
    /// Returns how many dictations had ended ("(heard nothing)") on the screen that showed the
    /// meter: one more than that means this one has ended too.
    @discardableResult
    func startListening(_ terminal: TerminalDriver, _ start: () throws -> Void) async throws -> Int {
        let before = Self.endings(try terminal.screen())
        for attempt in 1...5 {
            try start()
            let screen = try await terminal.waitFor("the meter", seconds: 120) { $0.contains("● ") || Self.endings($0) >= before + attempt }
            if screen.contains("● ") { return Self.endings(screen) }
        }
        Issue.record("dictation ended five times before its meter was seen")
        return Self.endings(try terminal.screen())
    }

    static func endings(_ screen: String) -> Int { screen.components(separatedBy: "(heard nothing)").count - 1 }

    /// Starts dictation with `start`, plays `wav` into it and waits until `heard` holds. On a
    /// starved run the 10 s of silence that end a dictation can pass before the sound is
    /// played ("(heard nothing)"); then it listens and plays again, up to 5 times.
    func dictate(_ terminal: TerminalDriver, _ pulse: TestPulseAudio, _ wav: String, _ what: String,
                 start: () throws -> Void, until heard: @escaping (String) -> Bool) async throws {
        for _ in 1...5 {
            // Counted on the screen that showed the meter: counted after it, a dictation that a
            // starved run had already ended by then was taken for one still listening (CI waited
            // 120 s for a word nobody was listening for).
            let before = try await startListening(terminal, start)
            try await pulse.play(wav)
            let screen = try await terminal.waitFor(what, seconds: 120) { heard($0) || Self.endings($0) > before }
            if heard(screen) { return }
        }
        Issue.record("dictation heard nothing five times: \(what)")
    }

    func echoServer() throws -> TestOpenAIServer {
        try TestOpenAIServer { body in [.text("got: " + (body["messages"]?.array?.last?["content"]?.string ?? "")), .done] }
    }

    /// The levels (dBFS) of 50 ms blocks of what the sound server plays, for `seconds`.
    func recordLevels(_ pulse: TestPulseAudio, seconds: Double) async throws -> [Double] {
        let server = pulse.server
        return try await offThePool {
            let source = try AudioDevices(pulseServer: server).openInput(sampleRate: 16000)
            var levels: [Double] = []
            var block = [Int16](repeating: 0, count: 800)
            for _ in 0..<Int(seconds * 20) {
                try block.withUnsafeMutableBufferPointer { try source.read(into: $0) }
                levels.append(block.withUnsafeBufferPointer { PCM.level($0) })
            }
            return levels
        }
    }

    @Test(.enabled(if: TestPulseAudio.isAvailable, "needs pulseaudio; scripts/setup.sh --test installs it"))
    func dictationFillsTheLineAndTheSendWordSendsIt() async throws {
        let pulse = try TestPulseAudio()
        let server = try echoServer()
        let hello = VoiceTestAssets.hello, thanks = VoiceTestAssets.thanks
        let home = TestHome(config: """
            [hark]
            default = bot
            libvosk = \(try VoiceTestAssets.libvoskPath)
            vosk_model = \(try VoiceTestAssets.koreanModelPath)
            vosk_grammar = \(hello), \(thanks)
            listen_pause = 3
            send_word = \(thanks)

            [session bot]
            kind = openai
            url = \(server.baseURL)
            """)
        let helloWAV = try VoiceTestAssets.koreanWAV(hello, in: home.directory, name: "hello.wav")
        let thanksWAV = try VoiceTestAssets.koreanWAV(thanks, in: home.directory, name: "thanks.wav")
        let terminal = try self.terminal(home, pulse: pulse)
        try await terminal.waitFor(text: "bot ›")

        // "◌ loading the Vosk model…" shows while the model loads; then the meter: listening.
        // The word shows in the line (while dictation still listens, on a machine that is not
        // starved: a loaded run saw the 3 s pause end it before the screen was read)…
        try await dictate(terminal, pulse, helloWAV, "the word in the line", start: { try terminal.enter("/listen") }) {
            $0.contains("bot › \(hello)")
        }
        // …and stays there to edit once a pause has ended dictation.
        try await terminal.waitFor("the end of dictation") { !$0.contains("● ") && $0.contains("bot › \(hello)") }
        #expect(server.bodies.isEmpty, "nothing is sent before Enter or the send word")

        // Ctrl-G dictates again; the send word said alone sends the line instead of being typed.
        try await dictate(terminal, pulse, thanksWAV, "the line sent", start: { try terminal.press("C-g") }) {
            $0.contains("got: \(hello)")
        }
        #expect(server.bodies.last?["messages"]?.array?.last?["content"]?.string == hello)

        try terminal.press("C-d")
        #expect(try await terminal.waitForExit() == 0)
    }

    @Test(.enabled(if: TestPulseAudio.isAvailable, "needs pulseaudio; scripts/setup.sh --test installs it"))
    func speechStopsOnMuteCtrlCAndANewMessage() async throws {
        let pulse = try TestPulseAudio()
        let sentence = "This reply is read aloud, one sentence after another, for quite a while. "
        // Each reply ends by naming the message, so the test knows which one is on screen;
        // "quiet" gets a reply with nothing to say.
        let server = try TestOpenAIServer { body in
            let message = body["messages"]?.array?.last?["content"]?.string ?? ""
            if message == "quiet" { return [.text("…"), .done] }
            return [.text(String(repeating: sentence, count: 8) + "That was \(message)."), .done]
        }
        let home = TestHome(config: "[hark]\ndefault = bot\n\n[session bot]\nkind = openai\nurl = \(server.baseURL)\n")
        let terminal = try self.terminal(home, pulse: pulse)
        try await terminal.waitFor(text: "bot ›")
        try terminal.enter("/speak on")
        try await terminal.waitFor(text: "replies in bot are read aloud (voice en, rate 175, pitch 50)")

        /// Sends `message`, hears its reply, does `silence`, and hears nothing after it.
        func talk(_ message: String, then what: String, _ silence: () async throws -> Void) async throws {
            try terminal.enter(message)
            // The reply is cut to the window's width: its last words may start a row.
            try await terminal.waitFor("the end of the reply to \(message)") {
                $0.replacingOccurrences(of: "\n", with: " ").contains("That was \(message).")
            }
            let speaking = try await recordLevels(pulse, seconds: 1.5)
            #expect(speaking.filter { $0 > -40 }.count >= 5, "\(message): the reply is heard: \(speaking.map { Int($0) })")
            try await silence()
            let after = try await recordLevels(pulse, seconds: 1)
            #expect(after.dropFirst(4).allSatisfy { $0 < -60 }, "silence after \(what): \(after.map { Int($0) })")
        }
        try await talk("talk to me", then: "/mute") {
            try terminal.enter("/mute")
            try await terminal.waitFor(text: "speech stopped")
        }
        try await talk("talk again", then: "Ctrl-C") {
            try terminal.press("C-c")
            try await terminal.waitFor(text: "^C")
        }
        try await talk("one more time", then: "a new message") {
            try terminal.enter("quiet")
            try await terminal.waitFor("the quiet reply") { $0.contains("› quiet\n…\n") }
        }

        try terminal.enter("/speak off")
        try await terminal.waitFor(text: "replies in bot are no longer read aloud")
        try terminal.press("C-d")
        #expect(try await terminal.waitForExit() == 0)
    }

    @Test(.enabled(if: TestPulseAudio.isAvailable, "needs pulseaudio; scripts/setup.sh --test installs it"))
    func autoSendSendsWhatWasDictated() async throws {
        let pulse = try TestPulseAudio()
        let server = try echoServer()
        let hello = VoiceTestAssets.hello
        let home = TestHome(config: """
            [hark]
            default = bot
            libvosk = \(try VoiceTestAssets.libvoskPath)

            [session bot]
            kind = openai
            url = \(server.baseURL)
            vosk_model = \(try VoiceTestAssets.koreanModelPath)
            vosk_grammar = \(hello), \(VoiceTestAssets.thanks)
            listen_pause = 1
            auto_send = on
            """)
        let helloWAV = try VoiceTestAssets.koreanWAV(hello, in: home.directory, name: "hello.wav")
        let terminal = try self.terminal(home, pulse: pulse)
        try await terminal.waitFor(text: "bot ›")
        // The pause ends dictation and the words go out without Enter.
        try await dictate(terminal, pulse, helloWAV, "the words sent", start: { try terminal.press("F5") }) {
            $0.contains("got: \(hello)")
        }
        #expect(server.bodies.count == 1)
        try terminal.press("C-d")
        #expect(try await terminal.waitForExit() == 0)
    }

    @Test func aMissingLibvoskIsOneLineAndTheShellGoesOn() async throws {
        let server = try echoServer()
        let home = TestHome(config: """
            [hark]
            default = bot
            libvosk = /nonexistent/libvosk.so

            [session bot]
            kind = openai
            url = \(server.baseURL)
            """)
        // hark-listen rebound in ~/.editrc (on top of Ctrl-G and F5).
        let terminal = try self.terminal(home, pulse: nil, editrc: "hark:bind ^T hark-listen\n")
        try await terminal.waitFor(text: "bot ›")
        let message = "hark: dictation needs libvosk, which is not at /nonexistent/libvosk.so (libvosk in [hark]); install"
        try terminal.enter("/listen")
        try await terminal.waitFor(text: message)
        try terminal.type("draft")
        try terminal.press("C-t")
        try await terminal.waitFor("the message again, the draft kept") { screen in
            screen.components(separatedBy: message).count == 3 && screen.contains("bot › draft")
        }
        try terminal.press("C-u")
        try terminal.enter("hi")
        try await terminal.waitFor(text: "got: hi")
        try terminal.press("C-d")
        #expect(try await terminal.waitForExit() == 0)
    }
}
