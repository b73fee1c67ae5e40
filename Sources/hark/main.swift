import Foundation
import HarkShell

exit(HarkCommandLine.run(Array(CommandLine.arguments.dropFirst())))
