import Foundation
import Testing
import TestSupport
@testable import HarkCore

/// `hark speak`, `hark transcribe`, `hark doctor` and `--listen` as scripts use them, with the
/// real espeak-ng, libvosk and Korean model.
@Suite(.serialized) struct VoiceCommandLineTests {
    struct Run {
        var status: Int32
        var stdout: String
        var stdoutBytes: [UInt8]
        var stderr: String
    }

    /// Runs hark to its end, off the concurrency pool (loading a model takes seconds).
    func hark(_ arguments: [String], home: TestHome, input: String? = nil, environment: [String: String] = [:]) async throws -> Run {
        let merged = home.environment.merging(environment) { $1 }
        let result = try await offThePool {
            try Subprocess.run([BuiltProducts.hark] + arguments, environment: merged,
                               streams: .captured(input: input.map { Data($0.utf8) } ?? Data()))
        }
        return Run(status: result.status, stdout: String(decoding: result.stdout, as: UTF8.self), stdoutBytes: [UInt8](result.stdout),
                   stderr: String(decoding: result.stderr, as: UTF8.self))
    }

    /// A home whose config points at the venv's libvosk and the Korean model.
    func voiceHome(_ extra: String = "") throws -> TestHome {
        TestHome(config: "[hark]\nlibvosk = \(try VoiceTestAssets.libvoskPath)\nvosk_model = \(try VoiceTestAssets.koreanModelPath)\n"
            + extra)
    }

    let grammar = [VoiceTestAssets.hello, VoiceTestAssets.thanks]

    @Test func speakWritesAWAVThatTranscribeReadsBack() async throws {
        let home = try voiceHome()
        let wav = home.directory.file("ko.wav")
        let spoken = try await hark(["speak", "--voice", "ko", "--rate", "100", "--wav", wav,
                               "\(VoiceTestAssets.hello). \(VoiceTestAssets.thanks)."], home: home)
        #expect(spoken.status == 0, "\(spoken.stderr)")
        #expect(spoken.stdout.isEmpty && spoken.stderr.isEmpty)
        let reader = try WAVReader(path: wav)
        #expect(reader.format.sampleRate == 22050)
        #expect(reader.duration > 2 && reader.duration < 8, "\(reader.duration) s")

        let plain = try await hark(["transcribe", wav, "--grammar"] + grammar, home: home)
        #expect(plain.status == 0, "\(plain.stderr)")
        #expect(plain.stdout == "\(VoiceTestAssets.hello) \(VoiceTestAssets.thanks)\n")
        #expect(plain.stderr.isEmpty, "Vosk's own logging stays quiet")

        let json = try await hark(["transcribe", "--json", "--grammar", grammar.joined(separator: ","), wav], home: home)
        #expect(json.status == 0, "\(json.stderr)")
        let result = try JSON.parse(json.stdout)
        #expect(result["text"]?.string == "\(VoiceTestAssets.hello) \(VoiceTestAssets.thanks)")
        let words = try #require(result["words"]?.array)
        #expect(words.compactMap { $0["word"]?.string } == grammar)
        #expect(words.allSatisfy { ($0["start"]?.double ?? -1) >= 0 && ($0["end"]?.double ?? 0) > ($0["start"]?.double ?? 0) })
        #expect(words.allSatisfy { ($0["confidence"]?.double ?? 0) > 0.5 })
    }

    @Test func speakTakesStdinAndWritesTheWAVToStdout() async throws {
        let home = TestHome()
        let run = try await hark(["speak", "--wav", "-", "--rate", "300"], home: home, input: "Hello there.\nA second line.\n")
        #expect(run.status == 0, "\(run.stderr)")
        #expect(Array(run.stdoutBytes.prefix(4)) == Array("RIFF".utf8))
        let path = home.directory.file("stdout.wav")
        _ = FileManager.default.createFile(atPath: path, contents: Data(run.stdoutBytes))
        let reader = try WAVReader(path: path)
        #expect(reader.duration > 0.8 && reader.duration < 4, "\(reader.duration) s")
        let voices = try await hark(["speak", "--voices"], home: home)
        #expect(voices.stdout.split(separator: "\n").contains { $0.hasPrefix("ko\t") })
    }

    @Test func badVoiceOptionsAreOneLineUsageErrors() async throws {
        let home = TestHome()
        let rate = try await hark(["speak", "--rate", "5", "hi"], home: home)
        #expect(rate.status == 2)
        #expect(rate.stderr == "hark: --rate must be a whole number from 80 to 450\n")
        let voice = try await hark(["speak", "--voice", "elvish", "hi"], home: home)
        #expect(voice.status == 2)
        #expect(voice.stderr == "hark: espeak-ng has no voice \"elvish\"; hark speak --voices lists them\n")
        let setting = TestHome(config: "[hark]\nrate = fast\n")
        let fromConfig = try await hark(["speak", "--wav", "/dev/null", "hi"], home: setting)
        #expect(fromConfig.stderr == "hark: [hark]: rate must be a whole number from 80 to 450, not \"fast\"\n")
    }

    @Test func aWrongLibvoskPathOrModelIsOneLineSayingWhatToDo() async throws {
        let wrong = TestHome(config: "[hark]\nlibvosk = /nonexistent/libvosk.so\nvosk_model = /nonexistent/model\n")
        let library = try await hark(["transcribe", "x.wav"], home: wrong)
        #expect(library.status == 1)
        #expect(library.stderr.hasPrefix("hark: dictation needs libvosk, which is not at /nonexistent/libvosk.so (libvosk in [hark]); "
            + "install the vosk wheel with: scripts/setup.sh, or python3 -m venv"))
        #expect(library.stderr.filter { $0 == "\n" }.count == 1)
        let model = try await hark(["transcribe", "x.wav"], home: try voiceHome().reconfigured(
            "[hark]\nlibvosk = \(try VoiceTestAssets.libvoskPath)\nvosk_model = /nonexistent/model\n"))
        #expect(model.status == 1)
        #expect(model.stderr == "hark: dictation needs a Vosk model, and there is none at /nonexistent/model; "
            + "download one for your language from https://alphacephei.com/vosk/models, unzip it and set vosk_model = FOLDER "
            + "in [hark] or the session\n")
        let notWAV = try voiceHome()
        let text = notWAV.directory.write("notes.wav", "not audio")
        let format = try await hark(["transcribe", text], home: notWAV)
        #expect(format.status == 2)
        #expect(format.stderr.hasPrefix("hark: \(text) is not a WAV file hark can read"))
    }

    @Test func doctorReportsEachVoicePart() async throws {
        let home = try voiceHome()
        let noServer = try await hark(["doctor"], home: home, environment: ["PULSE_SERVER": "unix:/nonexistent/pulse"])
        #expect(noServer.status == 1, "the sound parts are missing")
        let lines = noServer.stdout.split(separator: "\n").map(String.init)
        #expect(lines.count == 5, "\(noServer.stdout)")
        #expect(lines[0].hasPrefix("ok       speech        espeak-ng "))
        #expect(lines[1].hasPrefix("missing  audio output  no audio output: PulseAudio: "))
        #expect(lines[2] == "ok       dictation     libvosk \(try VoiceTestAssets.libvoskPath)")
        #expect(lines[3] == "ok       vosk model    \(try VoiceTestAssets.koreanModelPath) (16000 Hz)")
        #expect(lines[4].hasPrefix("missing  microphone    no microphone: "))
    }

    @Test func doctorFindsLibvoskByItselfAndChecksEachSessionsModel() async throws {
        // No libvosk in the config: the repository's .local/venv (where scripts/setup.sh puts
        // the wheel) is found from the binary. A session in another language has its own model.
        let home = TestHome(config: "[session ko]\nkind = local\nvosk_model = \(try VoiceTestAssets.koreanModelPath)\n"
            + "[session de]\nkind = local\nvosk_model = /nonexistent/de\n")
        let run = try await hark(["doctor"], home: home, environment: ["PULSE_SERVER": "unix:/nonexistent/pulse"])
        // The columns widen with the session names: compare with single spaces.
        let lines = run.stdout.split(separator: "\n").map { $0.split(separator: " ").joined(separator: " ") }
        let library = try VoiceTestAssets.libvoskPath, model = try VoiceTestAssets.koreanModelPath
        #expect(lines.contains("ok dictation libvosk \(library)"), "\(run.stdout)")
        #expect(lines.contains { $0.hasPrefix("missing vosk model dictation needs a Vosk model, and none is set; download") })
        #expect(lines.contains { $0.hasPrefix("ok vosk model (ko) ") && $0.hasSuffix("\(model) (16000 Hz)") })
        #expect(lines.contains { $0.hasPrefix("missing vosk model (de) ") && $0.contains("no Vosk model at /nonexistent/de; download") })
    }

    @Test(.enabled(if: TestPulseAudio.isAvailable, "needs pulseaudio; scripts/setup.sh --test installs it"))
    func doctorIsAllGreenWithASoundServer() async throws {
        let pulse = try TestPulseAudio()
        let run = try await hark(["doctor"], home: try voiceHome(), environment: pulse.environment([:]))
        #expect(run.status == 0, "\(run.stdout)")
        #expect(run.stdout.contains("audio output  PulseAudio"))
        #expect(run.stdout.contains("microphone    PulseAudio"))
    }

    @Test(.enabled(if: TestPulseAudio.isAvailable, "needs pulseaudio; scripts/setup.sh --test installs it"))
    func speakReadsTheReplyAloudBeforeExiting() async throws {
        let pulse = try TestPulseAudio()
        let server = try TestOpenAIServer { _ in [.text("Hello there"), .text(". Here is **more**"), .text(".\n```\nx = 1\n```\n"), .done] }
        let home = TestHome(config: "[session bot]\nkind = openai\nurl = \(server.baseURL)\n")
        let trace = home.directory.file("trace")
        let run = try await hark(["-s", "bot", "--speak", "hi"], home: home, environment: pulse.environment([:]).merging(
            ["HARK_VOICE_TRACE": trace]) { $1 })
        #expect(run.status == 0, "\(run.stderr)")
        #expect(run.stdout == "Hello there. Here is **more**.\n```\nx = 1\n```\n", "printed exactly as received")
        // Each sentence reached the sound server, in order, before hark exited.
        let events = try String(contentsOfFile: trace, encoding: .utf8).split(separator: "\n").map { try JSON.parse(String($0)) }
        let spoken = events.filter { $0["event"]?.string == "audio" }.compactMap { $0["text"]?.string }
        #expect(spoken == ["Hello there.", "Here is more.", "code block"])
    }

    @Test func sigtermEndsTranscribeWhileItWorks() async throws {
        let home = try voiceHome()
        let wav = try VoiceTestAssets.koreanWAV(String(repeating: "\(VoiceTestAssets.hello). ", count: 20), in: home.directory,
                                                name: "long.wav")
        let process = try ChildProcess([BuiltProducts.hark, "transcribe", wav], environment: home.environment)
        defer { process.signal(SIGKILL) }
        // Nothing shows that hark is loading the model but libvosk being mapped into it; it is
        // looked for, as no event tells it.
        let pid = process.pid
        let loading = try await offThePool { () -> Bool in
            while let maps = try? String(contentsOfFile: "/proc/\(pid)/maps", encoding: .utf8) {
                if maps.contains("libvosk") { return true }
                usleep(5_000)
            }
            return false
        }
        #expect(loading)
        process.signal(SIGTERM)
        #expect(try await process.waitForExit() == 143, "\(process.stdout) \(process.stderr)")
    }

    /// `tts_command` as a user sets it: a Piper-like script writing raw samples (espeak-ng's,
    /// without the WAV header), the sentence also noted to a file to show who spoke it.
    @Test(.enabled(if: TestPulseAudio.isAvailable, "needs pulseaudio; scripts/setup.sh --test installs it"))
    func speakSpeaksThroughTtsCommandToTheSoundServerAndAWAV() async throws {
        let pulse = try TestPulseAudio()
        let monitor = try pulse.monitor()
        defer { monitor.stop() }
        let directory = TemporaryDirectory()
        let said = directory.file("said.txt")
        let script = VoiceTestAssets.root + "/Tests/Fixtures/tts/espeak_raw.sh"
        let home = TestHome(config: "[hark]\ntts_command = tee -a \(said) | \(script)\ntts_rate = 22050\n")
        let start = Date()
        let run = try await hark(["speak", "Hello from a command."], home: home, environment: pulse.environment([:]))
        #expect(run.status == 0, "\(run.stderr)")
        #expect(try String(contentsOfFile: said, encoding: .utf8) == "Hello from a command.\n")
        #expect(try await monitor.hears(above: -40, after: start), "the speech was heard on the null sink")

        let wav = home.directory.file("said.wav")
        let written = try await hark(["speak", "--wav", wav, "Into a file."], home: home)
        #expect(written.status == 0, "\(written.stderr)")
        let reader = try WAVReader(path: wav)
        #expect(reader.format.sampleRate == 22050)
        #expect(reader.duration > 0.5)
        // --voice is espeak-ng's: the command is not run for it.
        let direct = try await hark(["speak", "--voice", "en", "--wav", wav, "Not the command."], home: home)
        #expect(direct.status == 0, "\(direct.stderr)")
        #expect(try String(contentsOfFile: said, encoding: .utf8) == "Hello from a command.\nInto a file.\n")
    }

    @Test func speakWithoutASoundServerSendsNothing() async throws {
        let server = try TestOpenAIServer { _ in [.text("never"), .done] }
        let home = TestHome(config: "[session bot]\nkind = openai\nurl = \(server.baseURL)\n")
        let run = try await hark(["-s", "bot", "--speak", "hi"], home: home, environment: ["PULSE_SERVER": "unix:/nonexistent/pulse"])
        #expect(run.status == 1)
        #expect(run.stderr.hasPrefix("hark: no audio output: PulseAudio: "))
        #expect(run.stderr.hasSuffix("; start PulseAudio or PipeWire (pulseaudio --start), or write a WAV with --wav FILE\n"))
        #expect(server.bodies.isEmpty, "checked before the message went out")
    }

    @Test(.enabled(if: TestPulseAudio.isAvailable, "needs pulseaudio; scripts/setup.sh --test installs it"))
    func listenDictatesSendsAndPrintsTheReply() async throws {
        let pulse = try TestPulseAudio()
        let server = try TestOpenAIServer { body in
            [.text("you said: " + (body["messages"]?.array?.last?["content"]?.string ?? "")), .done]
        }
        let home = try voiceHome("vosk_grammar = \(VoiceTestAssets.hello), \(VoiceTestAssets.thanks)\nlisten_pause = 1\n\n"
            + "[session bot]\nkind = openai\nurl = \(server.baseURL)\n")
        let wav = try VoiceTestAssets.koreanWAV("\(VoiceTestAssets.hello). \(VoiceTestAssets.thanks).", in: home.directory,
                                                name: "said.wav")
        let process = try ChildProcess([BuiltProducts.hark, "-s", "bot", "--listen"], environment: pulse.environment(home.environment))
        try await process.waitFor(stderr: "listening…")
        try await pulse.play(wav)
        #expect(try await process.waitForExit() == 0, "\(process.stderr)")
        #expect(process.stdout == "you said: \(VoiceTestAssets.hello) \(VoiceTestAssets.thanks)")
        #expect(server.bodies.last?["messages"]?.array?.last?["content"]?.string
            == "\(VoiceTestAssets.hello) \(VoiceTestAssets.thanks)")
    }
}

extension TestHome {
    /// This home with another config text.
    func reconfigured(_ config: String) -> TestHome {
        _ = FileManager.default.createFile(atPath: paths.configFile, contents: Data(config.utf8), attributes: [.posixPermissions: 0o600])
        return self
    }
}
