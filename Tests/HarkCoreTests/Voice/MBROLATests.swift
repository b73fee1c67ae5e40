import Foundation
import Testing
import TestSupport
@testable import HarkCore

/// MBROLA voices as espeak-ng knows them. Debian's main section, which the test machines use,
/// has neither the `mbrola` program nor its voices, so speaking with one is not tested here; the
/// listing is checked against espeak-ng's own (`espeak-ng --voices=mb`) and the installed check
/// against files laid out where espeak-ng looks for them.
@Suite struct MBROLATests {
    static let hasCommand = FileManager.default.isExecutableFile(atPath: "/usr/bin/espeak-ng")

    @Test(.enabled(if: hasCommand, "needs the espeak-ng command; scripts/setup.sh installs it"))
    func theMBROLAVoicesAreTheOnesEspeakNgLists() async throws {
        let run = try await offThePool { try Subprocess.run(["/usr/bin/espeak-ng", "--voices=mb"]) }
        // "Pty Language Age/Gender VoiceName File Other Languages": the file is the fifth column.
        let files = String(decoding: run.stdout, as: UTF8.self).split(separator: "\n").dropFirst()
            .compactMap { line in line.split(separator: " ", omittingEmptySubsequences: true).dropFirst(4).first.map(String.init) }
        let listed = try Espeak.shared.mbrolaVoices
        #expect(!files.isEmpty)
        #expect(Set(listed.map(\.identifier)) == Set(files))
        let english = try #require(listed.first { $0.identifier == "mb/mb-en1" })
        #expect(english.mbrola == "en1")
        #expect(english.selector == "mb-en1")
        #expect(listed.allSatisfy { $0.mbrola != nil && $0.isMBROLA })
        // espeak-ng's own voices are chosen by language, MBROLA ones by their file name.
        #expect(try Espeak.shared.voices.filter { !$0.isMBROLA }.allSatisfy { $0.selector == $0.language })
    }

    @Test func aVoiceIsUsableOnlyWithTheProgramAndItsDatabase() throws {
        let all = try Espeak.shared.mbrolaVoices
        let dataPath = try Espeak.shared.dataPath
        let directory = TemporaryDirectory()
        let share = directory.path + "/share", bin = directory.path + "/bin"
        try FileManager.default.createDirectory(atPath: share + "/mbrola/en1", withIntermediateDirectories: true)
        try FileManager.default.createDirectory(atPath: bin, withIntermediateDirectories: true)
        let environment = ["XDG_DATA_DIRS": share, "PATH": bin]
        // Only its presence is checked: espeak-ng runs it by name when it speaks.
        let program = bin + "/mbrola"
        #expect(FileManager.default.createFile(atPath: program, contents: Data("#!/bin/sh\nexit 1\n".utf8),
                                               attributes: [.posixPermissions: 0o755]))
        #expect(MBROLA.usable(all, dataPath: dataPath, environment: environment).isEmpty, "no database yet")
        #expect(FileManager.default.createFile(atPath: share + "/mbrola/en1/en1", contents: Data("database".utf8)))
        #expect(MBROLA.usable(all, dataPath: dataPath, environment: environment).map(\.identifier) == ["mb/mb-en1"])
        #expect(MBROLA.database("en1", dataPath: dataPath, environment: environment) == share + "/mbrola/en1/en1")
        #expect(MBROLA.usable(all, dataPath: dataPath, environment: ["XDG_DATA_DIRS": share, "PATH": "/nonexistent"]).isEmpty,
                "no program")
    }

    @Test func aVoiceNotInstalledSaysWhatToInstall() throws {
        let espeak = Espeak.shared
        guard MBROLA.usable(try espeak.mbrolaVoices, dataPath: try espeak.dataPath).isEmpty else { return }
        #expect(try espeak.voice(named: "mb-en1") == nil)
        let expected = "mb-en1 is an MBROLA voice, which is not installed here; install the mbrola program and its en1 voice, "
            + "e.g. sudo apt-get install mbrola mbrola-en1 (Debian has them outside its main section)"
        #expect(try espeak.unknownVoice("mb-en1", listedBy: "/voice").userMessage == expected)
        // Speaking with it says the same, before espeak-ng would print its own complaint.
        do {
            try espeak.synthesize("x", parameters: VoiceParameters(voice: "mb-en1")) { _ in true }
            Issue.record("spoke with a voice that is not installed")
        } catch {
            #expect(error.userMessage == expected)
        }
    }
}
