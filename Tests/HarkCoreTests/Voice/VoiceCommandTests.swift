import Foundation
import Testing
import TestSupport
@testable import HarkCore

/// /speak, /voice, /mute and /listen as a user types them, and where voice settings come from.
@Suite struct VoiceCommandTests {
    @Test func speakVoiceAndMuteChangeThisRunOfTheSession() async throws {
        let config = "[hark]\npitch = 40\n\n[session bot]\nkind = local\nvoice = en-us\nrate = 150\n"
        let home = TestHome(config: config)
        let workspace = try home.workspace()
        let pulse = try TestPulseAudio()
        workspace.voice.devices = AudioDevices(pulseServer: pulse.server)
        try workspace.switchSession(to: "bot")
        let transcript = Transcript(workspace)
        await transcript.type("/speak")
        await transcript.type("/speak on")
        await transcript.type("/voice ko rate=120")
        await transcript.type("/voice rate=9000")
        await transcript.type("/voice pitch=x")
        await transcript.type("/voice volume=3")
        await transcript.type("/mute")
        await transcript.type("/speak maybe")
        await transcript.type("/speak off")
        #expect(transcript.text == """
            > /speak
            speech is off in bot (voice en-us, rate 150, pitch 40)
            > /speak on
            replies in bot are read aloud (voice en-us, rate 150, pitch 40); /mute stops one, /speak off all
            > /voice ko rate=120
            bot speaks with voice ko, rate 120, pitch 40
            > /voice rate=9000
            hark: rate must be a whole number from 80 to 450
            > /voice pitch=x
            hark: pitch must be a whole number from 0 to 99
            > /voice volume=3
            hark: unknown volume; use /voice [NAME] [rate=N] [pitch=N]
            > /mute
            nothing is being said
            > /speak maybe
            hark: usage: /speak [on|off]
            > /speak off
            replies in bot are no longer read aloud

            """)
        #expect(try String(contentsOfFile: home.paths.configFile, encoding: .utf8) == config, "the config is left as it was")
        // Other sessions keep their own.
        try workspace.switchSession(to: "local")
        #expect(try workspace.voiceSettings().parameters == VoiceParameters(voice: nil, rate: nil, pitch: 40))
    }

    @Test func infoTellsHowTheSessionSpeaksAndWhichModelItDictatesWith() async throws {
        let model = try VoiceTestAssets.koreanModelPath
        let home = TestHome(config: "[hark]\nrate = 150\n\n[session ko]\nkind = local\nvosk_model = \(model)\n"
            + "[session bad]\nkind = local\nvosk_model = /nonexistent/model\n")
        let workspace = try home.workspace()
        let pulse = try TestPulseAudio()
        workspace.voice.devices = AudioDevices(pulseServer: pulse.server)
        let transcript = Transcript(workspace)
        let plain = await transcript.type("/info")
        #expect(plain.contains("\nspeech   off · voice en, rate 150, pitch 50\n"), "\(plain)")
        #expect(plain.contains("\nvosk     none (set vosk_model to dictate)\n"))
        try workspace.switchSession(to: "ko")
        await transcript.type("/speak on")
        await transcript.type("/voice ko")
        let korean = await transcript.type("/info")
        #expect(korean.contains("\nspeech   on · voice ko, rate 150, pitch 50\n"), "\(korean)")
        #expect(korean.contains("\nvosk     \(model)\n"))
        try workspace.switchSession(to: "bad")
        #expect(await transcript.type("/info").contains("\nvosk     /nonexistent/model (not a Vosk model; hark doctor)\n"))
    }

    /// No sound server, no sound card: `/speak on` says so at once, and speech stays off.
    @Test func speakOnWithoutAnAudioOutputSaysSoAtOnce() async throws {
        let workspace = try TestHome(config: "[session bot]\nkind = local\n").workspace()
        workspace.voice.devices = AudioDevices(pulseServer: "unix:/nonexistent/hark-no-server")
        try workspace.switchSession(to: "bot")
        let transcript = Transcript(workspace)
        let output = await transcript.type("/speak on")
        #expect(output.hasPrefix("> /speak on\nhark: no audio output: PulseAudio: "), "\(output)")
        #expect(output.filter { $0 == "\n" }.count == 2, "one line: \(output)")
        #expect(await transcript.type("/speak") == "> /speak\nspeech is off in bot (voice en, rate 175, pitch 50)\n")
    }

    @Test func voiceListsTheInstalledVoicesAndRejectsUnknownOnes() async throws {
        let workspace = try TestHome(config: "[session bot]\nkind = local\n").workspace()
        try workspace.switchSession(to: "bot")
        let transcript = Transcript(workspace)
        let listing = await transcript.type("/voice")
        #expect(listing.contains("\nko "))
        #expect(listing.contains("Korean"))
        #expect(listing.contains("voices; bot speaks with voice en, rate 175, pitch 50. /voice NAME [rate=80-450] [pitch=0-99] changes it"))
        let unknown = await transcript.type("/voice english-ish")
        #expect(unknown.hasPrefix("> /voice english-ish\nhark: espeak-ng has no voice \"english-ish\""))
        if MBROLA.usable(try Espeak.shared.mbrolaVoices, dataPath: try Espeak.shared.dataPath).isEmpty {
            // No MBROLA voice here (Debian's main section has none): the list says how to get one.
            #expect(listing.contains("MBROLA voices (mb-us1 and others) sound more natural; to use them, install the mbrola "
                + "program and its us1 voice, e.g. sudo apt-get install mbrola mbrola-us1"))
            let mbrola = await transcript.type("/voice mb-us1")
            #expect(mbrola.contains("hark: mb-us1 is an MBROLA voice, which is not installed here; install"))
        }
    }

    @Test func listenSaysWhatIsMissingBeforeListening() async throws {
        let missing = try TestHome(config: "[hark]\nlibvosk = /nonexistent/libvosk.so\n").workspace()
        let transcript = Transcript(missing)
        #expect(await transcript.type("/listen") == "> /listen\nhark: dictation needs libvosk, which is not at "
            + "/nonexistent/libvosk.so (libvosk in [hark]); install the vosk wheel with: scripts/setup.sh, or python3 -m venv "
            + "~/.local/share/hark/venv && ~/.local/share/hark/venv/bin/pip install vosk, or correct libvosk\n")
        let ready = try TestHome(config: "[hark]\nlibvosk = \(try VoiceTestAssets.libvoskPath)\n"
            + "vosk_model = \(try VoiceTestAssets.koreanModelPath)\n").workspace()
        #expect(await Transcript(ready).type("/listen") == "> /listen\n[listening]\n")
        let noModel = try TestHome(config: "[hark]\nlibvosk = \(try VoiceTestAssets.libvoskPath)\n").workspace()
        #expect(await Transcript(noModel).type("/listen") == "> /listen\nhark: dictation needs a Vosk model, and none is set; "
            + "download one for your language from https://alphacephei.com/vosk/models, unzip it and set vosk_model = FOLDER "
            + "in [hark] or the session\n")
    }

    @Test func settingsComeFromTheSessionThenHarkThenDefaults() throws {
        let config = try ConfigFile.parse("""
            [hark]
            speak = on
            voice = de
            vosk_model = ~/models/de
            listen_pause = 2
            send_word = send|go

            [session ko]
            kind = local
            voice = ko
            vosk_model = models/ko
            vosk_grammar = 안녕하세요, "감사합니다"
            auto_send = yes
            """, path: "/x/config")
        let paths = Paths(configDirectory: "/x", dataDirectory: "/d")
        let defaults = try VoiceSettings.resolve(session: try #require(config.session(named: "local")), config: config, paths: paths)
        #expect(defaults.speak && defaults.parameters.voice == "de" && defaults.pause == 2 && !defaults.autoSend)
        #expect(defaults.voskModel == NSHomeDirectory() + "/models/de")
        let korean = try VoiceSettings.resolve(session: try #require(config.session(named: "ko")), config: config, paths: paths,
                                               overrides: VoiceOverrides(speak: false))
        #expect(!korean.speak, "/speak off wins over the config")
        #expect(korean.parameters.voice == "ko" && korean.voskModel == "/x/models/ko" && korean.autoSend)
        #expect(korean.grammar == ["안녕하세요", "감사합니다"])
        #expect(korean.interpret("Go") == .send && korean.interpret("send.") == .send)
        #expect(korean.interpret("cancel") == .cancel && korean.interpret("Stop speaking") == .mute)
        #expect(korean.interpret("send it now") == .text("send it now"), "only a command word said alone acts")

        let bad = try ConfigFile.parse("[hark]\nlisten_pause = 0\n[session s]\nkind = local\nauto_send = perhaps\n", path: "/x")
        #expect(throws: HarkError.usage("[hark]: listen_pause must be seconds from 0.3 to 10.0, not \"0\"")) {
            try VoiceSettings.resolve(session: bad.session(named: "local")!, config: bad, paths: paths)
        }
        #expect(throws: HarkError.usage("session s: auto_send must be on or off, not \"perhaps\"")) {
            try VoiceSettings.resolve(session: bad.session(named: "s")!, config: bad, paths: paths)
        }
    }

    @Test func ttsCommandAndWakeWordSettings() throws {
        let config = try ConfigFile.parse("""
            [hark]
            tts_command = piper --model en.onnx --output-raw
            tts_rate = 22050
            wake_word = hey hark|Computer

            [session bad]
            kind = local
            tts_rate = fast
            """, path: "/x/config")
        let paths = Paths(configDirectory: "/x", dataDirectory: "/d")
        let local = try #require(config.session(named: "local"))
        let settings = try VoiceSettings.resolve(session: local, config: config, paths: paths)
        #expect(settings.parameters.command == "piper --model en.onnx --output-raw" && settings.parameters.commandRate == 22050)
        #expect(settings.wakeWords == ["hey hark", "computer"])
        #expect(settings.holdsWakePhrase("Hey, hark!") && settings.holdsWakePhrase("well computer listen"))
        #expect(!settings.holdsWakePhrase("hey harky") && !settings.holdsWakePhrase("hark"))
        var limited = settings
        limited.grammar = ["yes", "Hey hark", "no"]
        #expect(limited.wakeGrammar == ["hey hark", "computer", "yes", "no"], "other phrases to tell the wake phrase from")
        // A voice chosen with /voice is espeak-ng's, for this run.
        let chosen = try VoiceSettings.resolve(session: local, config: config, paths: paths,
                                               overrides: VoiceOverrides(parameters: VoiceParameters(voice: "de")))
        #expect(chosen.parameters.command == nil && chosen.parameters.voice == "de")
        #expect(Workspace.describe(settings.parameters) == "tts_command piper --model en.onnx --output-raw")
        #expect(throws: HarkError.usage("session bad: tts_rate must be a whole number from 8000 to 192000, not \"fast\"")) {
            try VoiceSettings.resolve(session: config.session(named: "bad")!, config: config, paths: paths)
        }
    }
}
