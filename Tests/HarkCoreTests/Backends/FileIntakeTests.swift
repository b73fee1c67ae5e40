import Foundation
import Testing
@testable import HarkCore

/// The one decision of how a file goes to a session, or the one line that refuses it.
@Suite struct FileIntakeTests {
    static let llama = SessionConfig(name: "llama", kind: "openai")

    func refusal(_ intake: FileIntake, _ content: FileContent, size: Int = 10, session: SessionConfig = llama) -> String? {
        do {
            _ = try intake.form(of: content, name: "f", size: size, session: session)
            return nil
        } catch {
            return error.userMessage
        }
    }

    @Test func aModelReadsTextPDFsAndImagesItTakes() throws {
        let model = FileIntake.model(name: "gemma", takesImages: nil)
        #expect(try model.form(of: .text("text/plain"), name: "f", size: 1, session: Self.llama) == .text)
        #expect(try model.form(of: .pdf, name: "f", size: 1, session: Self.llama) == .text)
        #expect(try model.form(of: .image("image/png"), name: "f", size: 1, session: Self.llama) == .image,
                "a server that does not say gets the image")
        #expect(refusal(.model(name: "gemma", takesImages: false), .image("image/png"))
                == "llama (gemma) does not take images, so f (image/png) cannot go with a message; use a model that reads them (a vision model)")
        #expect(refusal(model, .binary("application/zip"))
                == "f is application/zip, not text, a PDF or an image, which is all llama (gemma) reads")
        #expect(refusal(.model(name: "", takesImages: nil), .binary("application/zip"))?.hasSuffix("which is all llama reads") == true)
    }

    @Test func kindsThatCarryFilesTakeAnyUpToTheirLimit() throws {
        let agent = SessionConfig(name: "agent", kind: "a2a")
        #expect(try FileIntake.files(limit: nil).form(of: .binary("application/zip"), name: "f", size: 1 << 30, session: agent) == .file)
        #expect(try FileIntake.files(limit: 100).form(of: .pdf, name: "f", size: 100, session: agent) == .file)
        #expect(refusal(.files(limit: 100), .pdf, size: 101, session: agent) == "f is 101 B, more than the 100 B agent takes")
        #expect(refusal(.none, .text("text/plain"), session: SessionConfig(name: "ci", kind: "jenkins"))
                == "a jenkins session takes no files, so f cannot go to ci")
    }
}
