import Foundation

/// The fields of `/proc/<pid>/stat` the benchmarks read: the parent and CPU times.
struct ProcessStat {
    var parent: pid_t
    /// User plus system CPU seconds of the process itself.
    var cpuSeconds: Double
    /// User plus system CPU seconds of its children that ended and were waited for.
    var childrenCPUSeconds: Double

    /// Nil when the process is gone or its stat cannot be read.
    init?(pid: pid_t) {
        guard let stat = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8),
              let close = stat.lastIndex(of: ")") else { return nil }
        // Fields after the command name, from field 3 (the state): ppid is field 4, utime,
        // stime, cutime and cstime are 14 to 17.
        let fields = stat[stat.index(after: close)...].split(separator: " ")
        guard fields.count > 14, let parent = pid_t(fields[1]),
              let user = Double(fields[11]), let system = Double(fields[12]),
              let childrenUser = Double(fields[13]), let childrenSystem = Double(fields[14]) else { return nil }
        let ticks = Double(sysconf(Int32(_SC_CLK_TCK)))
        self.parent = parent
        cpuSeconds = (user + system) / ticks
        childrenCPUSeconds = (childrenUser + childrenSystem) / ticks
    }
}

/// What a PostgreSQL cluster's processes (the postmaster and every process it started) cost.
struct ClusterUsage {
    /// The postmaster, from the first line of `postmaster.pid` in the data directory.
    let postmaster: pid_t

    init(dataDirectory: String) throws {
        guard let text = try? String(contentsOfFile: dataDirectory + "/postmaster.pid", encoding: .utf8),
              let first = text.split(separator: "\n").first, let pid = pid_t(first) else {
            throw BenchError("Cannot read the server's process id from \(dataDirectory)/postmaster.pid.")
        }
        postmaster = pid
    }

    /// The postmaster and its children now.
    func processes() -> [pid_t] {
        let children = ((try? FileManager.default.contentsOfDirectory(atPath: "/proc")) ?? []).compactMap { name -> pid_t? in
            guard let pid = pid_t(name), pid != postmaster, ProcessStat(pid: pid)?.parent == postmaster else { return nil }
            return pid
        }
        return [postmaster] + children
    }

    /// CPU seconds the cluster used so far: its processes' own, plus those of the ones that
    /// already ended (counted in the postmaster's children times).
    func cpuSeconds() -> Double {
        processes().reduce(0) { total, pid in
            guard let stat = ProcessStat(pid: pid) else { return total }
            return total + stat.cpuSeconds + (pid == postmaster ? stat.childrenCPUSeconds : 0)
        }
    }

    /// The cluster's memory in MB: the sum of its processes' proportional set sizes (shared
    /// memory split among the processes that map it, so counted once).
    func memoryMB() -> Double {
        let kB = processes().reduce(0) { total, pid in
            guard let text = try? String(contentsOfFile: "/proc/\(pid)/smaps_rollup", encoding: .utf8) else { return total }
            let pss = text.split(separator: "\n").first { $0.hasPrefix("Pss:") }
            return total + (pss.flatMap { Int($0.filter(\.isNumber)) } ?? 0)
        }
        return Double(kB) / 1024
    }
}
