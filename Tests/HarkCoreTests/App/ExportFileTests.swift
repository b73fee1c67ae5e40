import Foundation
import Testing
import TestSupport
@testable import HarkCore

/// An export (and `/save` of a reply) holds the private history: a new file is the user's
/// alone (0600), one the user named that exists keeps the mode they gave it.
@Suite struct ExportFileTests {
    static func mode(_ path: String) -> mode_t {
        var info = stat()
        return stat(path, &info) == 0 ? info.st_mode & 0o777 : 0
    }

    @Test func shellExportsAndSavedRepliesAreCreatedPrivate() async throws {
        let server = try TestOpenAIServer(script: TestOpenAIServer.streaming(["the ", "answer"]))
        let home = TestHome(config: "[session bot]\nkind = openai\nurl = \(server.baseURL)\n")
        let transcript = Transcript(try home.workspace())
        await transcript.type("/session bot")
        await transcript.type("what is it")
        await transcript.settle()
        let fresh = home.directory.file("thread.json")
        await transcript.type("/export json \(fresh)")
        #expect(Self.mode(fresh) == 0o600, "\(transcript.text)")
        let saved = home.directory.file("saved.txt")
        await transcript.type("/save \(saved)")
        #expect(Self.mode(saved) == 0o600, "\(transcript.text)")
        #expect(try String(contentsOfFile: saved, encoding: .utf8) == "the answer\n")
        let shared = home.directory.write("shared.md", "old", mode: 0o644)
        chmod(shared, 0o644)
        await transcript.type("/export md \(shared)")
        #expect(Self.mode(shared) == 0o644)
        #expect(try String(contentsOfFile: shared, encoding: .utf8).contains("what is it"))
        #expect(throws: HarkError.self) { try PosixFile.writePrivately([1], to: home.directory.file("no/such/folder/x")) }
    }
}
