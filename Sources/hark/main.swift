import FoundationEssentials
import Glibc
import HarkShell

exit(HarkCommandLine.run(Array(CommandLine.arguments.dropFirst())))
