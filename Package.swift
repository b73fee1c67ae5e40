// swift-tools-version:6.0
// hark: a terminal messenger for agents. No Swift package dependencies: the C libraries it
// needs (sqlite3, libedit, libcurl, zlib; for voice espeak-ng, libvosk, PulseAudio, ALSA) are
// reached through thin targets in Sources/C*.
import PackageDescription

let package = Package(
    name: "hark",
    platforms: [.macOS(.v13)],
    products: [
        .executable(name: "hark", targets: ["hark"]),
    ],
    targets: [
        // C interop: system libraries with static-inline shims for variadic calls.
        .systemLibrary(name: "CSQLite", path: "Sources/CSQLite"),
        .systemLibrary(name: "CZlib", path: "Sources/CZlib"),
        // libcurl is loaded with dlopen on the first HTTP request, so `hark version` and the
        // offline shell never pay for loading it and its forty dependent libraries.
        .target(name: "CCurl", path: "Sources/CCurl", linkerSettings: [.linkedLibrary("dl")]),
        // libedit too, when the interactive shell starts: commands in pipes and scripts never
        // load it and the three libraries it brings.
        .target(name: "CEditLine", path: "Sources/CEditLine", linkerSettings: [.linkedLibrary("dl")]),

        // espeak-ng, libvosk, PulseAudio and ALSA, each loaded with dlopen by the voice feature
        // that needs it, so nothing voice-related is in memory unless voice is used.
        .target(name: "CVoice", path: "Sources/CVoice", linkerSettings: [.linkedLibrary("dl")]),

        .target(name: "HarkCore", dependencies: ["CSQLite", "CCurl", "CZlib", "CVoice"], path: "Sources/HarkCore"),
        .target(name: "HarkShell", dependencies: ["HarkCore", "CEditLine"], path: "Sources/HarkShell"),
        // Linked position-dependent in release builds: the static Swift runtime and Foundation
        // bring tens of thousands of relative relocations that a position-independent
        // executable applies at every start (78,000 and a quarter of `hark version` when hark
        // still linked corelibs Foundation; BENCHMARKS.md). Shared libraries, the stack and the
        // heap are still placed at random. Nor does it export its own symbols (Swift links
        // executables with --export-dynamic): each symbol a shared library looked up at start was
        // first looked for among the executable's 4,000: 45% of the dynamic loader's time.
        .executableTarget(name: "hark", dependencies: ["HarkCore", "HarkShell"], path: "Sources/hark",
                          linkerSettings: [.unsafeFlags(["-Xclang-linker", "-no-pie", "-Xlinker", "--no-export-dynamic"],
                                                        .when(platforms: [.linux], configuration: .release))]),

        // Loopback servers that speak the real wire protocols, temp homes, a pty driver, a fake terminal.
        // The fake terminal drives the shipped shell (HarkShell) in golden transcripts.
        .target(name: "TestSupport", dependencies: ["HarkCore", "HarkShell"], path: "Tests/TestSupport"),
        // The loopback server the benchmarks (scripts/bench.sh) stream from.
        .executableTarget(name: "hark-bench-server", dependencies: ["TestSupport"], path: "Tests/BenchServer"),
        .testTarget(name: "HarkCoreTests", dependencies: ["HarkCore", "TestSupport"], path: "Tests/HarkCoreTests"),
        .testTarget(name: "HarkShellTests", dependencies: ["HarkShell", "HarkCore", "TestSupport"], path: "Tests/HarkShellTests"),
    ]
)
