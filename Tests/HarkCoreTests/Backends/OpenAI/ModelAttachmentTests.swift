import Foundation
import Testing
import TestSupport
@testable import HarkCore

/// Files attached to a model session go as what they are, against the recording model server:
/// a PDF as its text, an image as an image part (to a model that takes images), text files
/// inlined; anything else is refused at /attach, before any request. /retry sends the same.
@Suite struct ModelAttachmentTests {
    /// llama.cpp's /props for a model with (or without) a projector: `modalities.vision`.
    static func props(vision: Bool, window: Int = 8192) -> JSON {
        ["default_generation_settings": ["n_ctx": .number(Double(window))],
         "modalities": ["vision": .bool(vision), "audio": false]]
    }

    static func session(_ server: TestOpenAIServer) throws -> (Workspace, TestHome, TemporaryDirectory) {
        let home = TestHome(config: "[session llama]\nkind = openai\nurl = \(server.baseURL)\nmodel = gemma\n")
        let workspace = try home.workspace()
        try workspace.switchSession(to: "llama")
        return (workspace, home, TemporaryDirectory())
    }

    /// The content of the last user message of each chat request.
    static func userContents(_ server: TestOpenAIServer) -> [JSON] {
        server.bodies.compactMap { $0["messages"]?.array?.last(where: { $0["role"]?.string == "user" })?["content"] }
    }

    static let png = DocumentFixtures.png

    @Test(.enabled(if: DocumentFixtures.hasPdftotext, "needs pdftotext; scripts/setup.sh --test installs poppler-utils"))
    func aPDFGoesAsItsTextWithPagesNumberedAndRetryResendsIt() async throws {
        let server = try TestOpenAIServer { _ in [.text("ok"), .done] }
        let (workspace, _, files) = try Self.session(server)
        let path = files.file("report.pdf")
        _ = FileManager.default.createFile(atPath: path, contents: Data(DocumentFixtures.pdf(pages: DocumentFixtures.reportPages)))
        let transcript = Transcript(workspace)
        #expect(await transcript.type("/attach \(path)").contains("report.pdf"))
        await transcript.type("summarize it")
        await transcript.type("/retry")
        let sent = Self.userContents(server)
        #expect(sent.count == 2)
        #expect(sent[0].string == """
            summarize it

            <file name="report.pdf">
            [page 1]
            Quarterly travel report
            Trips taken: 14

            [page 2]
            Budget status
            The travel budget is 80 percent spent.
            </file>
            """)
        #expect(sent[1] == sent[0], "/retry sends the same parts")
        #expect(!server.http.requests.map(\.text).joined().contains("%PDF"), "never the PDF's bytes")
    }

    @Test func anImageGoesAsAnImagePartToAModelThatTakesImages() async throws {
        let server = try TestOpenAIServer(props: Self.props(vision: true)) { _ in [.text("ok"), .done] }
        let (workspace, _, files) = try Self.session(server)
        let path = files.file("photo.jpg")
        _ = FileManager.default.createFile(atPath: path, contents: Data(Self.png))
        let transcript = Transcript(workspace)
        await transcript.type("/attach \(path)")
        await transcript.type("what is this?")
        await transcript.type("/retry")
        let sent = Self.userContents(server)
        let expected: JSON = [["type": "text", "text": "what is this?"],
                              ["type": "image_url", "image_url": ["url": .string("data:image/png;base64," + Data(Self.png).base64EncodedString())]]]
        #expect(sent == [expected, expected], "typed by its bytes (a PNG named .jpg), and sent again by /retry")
        let message = try #require(try workspace.store.lastMessage(session: "llama", role: .user))
        let attached = try workspace.store.attachments(messageID: message.id)
        #expect(attached.map(\.mimeType) == ["image/png"])
    }

    /// Told by llama.cpp's /props that the model has no vision, hark refuses the image at
    /// /attach, naming the model: the server would answer a 500 ("image input is not supported").
    @Test func anImageIsRefusedForAModelWithoutVisionBeforeAnyMessage() async throws {
        let server = try TestOpenAIServer(props: Self.props(vision: false)) { _ in [.text("ok"), .done] }
        let (workspace, _, files) = try Self.session(server)
        let path = files.file("photo.png")
        _ = FileManager.default.createFile(atPath: path, contents: Data(Self.png))
        let output = await Transcript(workspace).type("/attach \(path)")
        #expect(output.contains("llama (gemma) does not take images, so photo.png (image/png) cannot go with a message"))
        #expect(try workspace.store.pendingAttachments(session: "llama").isEmpty)
        #expect(server.bodies.isEmpty)
    }

    /// Ollama says what its model can do in /api/show's `capabilities` ("vision" among them
    /// for a model that reads images; ollama/ollama docs/api.md, Show Model Information).
    @Test(arguments: [true, false])
    func ollamaSaysWhetherItsModelTakesImages(vision: Bool) async throws {
        let show: JSON = ["parameters": "num_ctx 8192", "capabilities": vision ? ["completion", "vision"] : ["completion"]]
        let server = try TestOpenAIServer(show: show) { _ in [.text("ok"), .done] }
        let (workspace, _, files) = try Self.session(server)
        let path = files.file("photo.png")
        _ = FileManager.default.createFile(atPath: path, contents: Data(Self.png))
        let transcript = Transcript(workspace)
        let attached = await transcript.type("/attach \(path)")
        #expect(attached.contains("does not take images") == !vision)
        await transcript.type("what is this?")
        let parts = Self.userContents(server).last?.array?.compactMap { $0["type"]?.string }
        #expect(parts == (vision ? ["text", "image_url"] : nil), "a plain string when no image went")
    }

    /// Random bytes are no use to a model: refused before any request (the server is not even
    /// asked what its model takes).
    @Test func otherBinaryFilesAreRefusedBeforeAnyRequest() async throws {
        let server = try TestOpenAIServer { _ in [.text("ok"), .done] }
        let (workspace, _, files) = try Self.session(server)
        var random = SplitMix(seed: 7)
        let bytes = (0..<100).map { _ in UInt8(truncatingIfNeeded: random.next()) } + [0]
        let path = files.file("blob.dat")
        _ = FileManager.default.createFile(atPath: path, contents: Data(bytes))
        let transcript = Transcript(workspace)
        let output = await transcript.type("/attach \(path)")
        #expect(output.contains("blob.dat is application/octet-stream, not text, a PDF or an image, which is all llama (gemma) reads"))
        #expect(server.http.requests.isEmpty)
        await transcript.type("hello")
        #expect(Self.userContents(server) == ["hello"], "nothing was attached")
    }

    @Test func aTextFileIsInlinedAfterTheMessage() async throws {
        let server = try TestOpenAIServer { _ in [.text("ok"), .done] }
        let (workspace, _, files) = try Self.session(server)
        let path = files.write("notes.md", "# Notes\nbuy milk\n")
        let transcript = Transcript(workspace)
        await transcript.type("/attach \(path)")
        await transcript.type("what do I need?")
        #expect(Self.userContents(server) == ["what do I need?\n\n<file name=\"notes.md\">\n# Notes\nbuy milk\n</file>"])
    }

    /// A file whose text cannot fit the model's window is refused when attached, with both sizes.
    @Test func aFileTooLongForTheWindowIsRefusedWhenAttached() async throws {
        let server = try TestOpenAIServer(props: Self.props(vision: false, window: 1024)) { _ in [.text("ok"), .done] }
        let (workspace, _, files) = try Self.session(server)
        let path = files.write("big.txt", String(repeating: "word ", count: 2000))
        let output = await Transcript(workspace).type("/attach \(path)")
        #expect(output.contains("big.txt (9.8 KB) is about 2,500 tokens; llama takes 1,024 (256 of them kept for the reply): it was not attached"))
        #expect(try workspace.store.pendingAttachments(session: "llama").isEmpty)
        #expect(server.bodies.isEmpty)
    }
}
