#pragma once

#include <QString>
#include <cstdint>
#include <vector>

namespace tpg {

// The configuration table's filter, as a user types it:
//   12 or #12          that configuration
//   top 10             the ten fastest (ties share a rank)
//   <1.05              within 5% of the best: a bare number is a ratio to the best runtime, on
//                      every kind of file (tile files: of the normalised runtime)
//   <2.5ms  >=300us    a runtime, always with its unit (ns, us, µs, ms, s)
// Comparisons combine: ">=2.1ms <2.3ms". A bare number too large to be a ratio (">3000") is
// refused with a message saying to add a unit.
class ConfigFilter {
public:
    static ConfigFilter parse(const QString& text);

    bool isEmpty() const { return m_clauses.empty() && m_error.isEmpty(); }
    const QString& error() const { return m_error; }  // "" when readable
    // "top N" needs ranks; ratios and runtimes need runtimes (measured, or else predicted).
    bool needsRanks() const;
    bool needsRuntimes() const;
    // `runtimeNs`: the configuration's runtime; `ratio`: its ranking value over the best one;
    // `rank`: 1 = fastest.
    bool accepts(int64_t config, double runtimeNs, double ratio, int64_t rank) const;

private:
    struct Clause {
        enum class Kind { Config, Top, Ratio, Runtime } kind = Kind::Config;
        bool less = true, orEqual = false;
        double bound = 0;
        int64_t n = 0;
    };
    std::vector<Clause> m_clauses;
    QString m_error;
};

}  // namespace tpg
