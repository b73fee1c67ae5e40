import Foundation
import Testing
import TestSupport
@testable import HarkCore

/// A first run's hints are the same with a model as without, plus one line on what the model
/// does and how to point `llm` at a bigger one.
@Suite struct LocalGreetingTests {
    @Test func withAModelTheFirstRunHintsSayWhatItIsFor() async throws {
        let plain = await Transcript(try TestHome().workspace()).greeting
        let server = try TestOpenAIServer { _ in [.done] }
        let withModel = await Transcript(try LocalFormRemoteTests.modelHome(server).workspace()).greeting
        let hints = plain.split(separator: "\n").dropFirst().map(String.init)
        #expect(hints.count == 3, "\(plain)")
        let lines = withModel.split(separator: "\n").dropFirst().map(String.init)
        #expect(Array(lines.prefix(3)) == hints, "\(withModel)")
        #expect(lines.dropFirst(3).first == "The model llama reads the form answers the rules cannot and writes /ask's answers "
            + "from your files. A bigger one: any openai session (Ollama, llama.cpp with another GGUF, a hosted API), then "
            + "/session edit local llm=NAME.")
        #expect(!plain.contains("The model"))
    }
}
