#include "ConfigFilter.h"

#include <QObject>
#include <QRegularExpression>
#include <algorithm>

#include "WidgetLimits.h"

namespace tpg {

namespace {

double nsPerUnit(const QString& unit) {
    if (unit == QLatin1String("s")) return 1e9;
    if (unit == QLatin1String("ms")) return 1e6;
    if (unit == QLatin1String("us") || unit == QStringLiteral("µs")) return 1e3;
    return 1;  // ns
}

}  // namespace

ConfigFilter ConfigFilter::parse(const QString& text) {
    ConfigFilter f;
    const QString t = text.trimmed();
    if (t.isEmpty()) return f;
    static const QRegularExpression top(QStringLiteral("^top\\s*(\\d+)$"), QRegularExpression::CaseInsensitiveOption);
    static const QRegularExpression id(QStringLiteral("^#?(\\d+)$"));
    if (const auto m = top.match(t); m.hasMatch()) {
        f.m_clauses.push_back({Clause::Kind::Top, true, true, 0, m.captured(1).toLongLong()});
        return f;
    }
    if (const auto m = id.match(t); m.hasMatch()) {
        f.m_clauses.push_back({Clause::Kind::Config, true, true, 0, m.captured(1).toLongLong()});
        return f;
    }
    static const QRegularExpression cmp(
        QStringLiteral("^\\s*(<=|>=|<|>)\\s*([0-9]*\\.?[0-9]+(?:[eE][+-]?[0-9]+)?)\\s*(ns|us|µs|ms|s)?\\s*"),
        QRegularExpression::CaseInsensitiveOption);
    for (QString rest = t; !rest.trimmed().isEmpty();) {
        const auto m = cmp.match(rest);
        if (!m.hasMatch()) {
            f.m_error = QObject::tr("Cannot read \"%1\": use a configuration (12), top 10, a ratio to the best "
                                    "(<1.05) or a runtime with its unit (<2.5ms)")
                            .arg(rest.trimmed());
            f.m_clauses.clear();
            return f;
        }
        Clause c;
        const QString op = m.captured(1);
        c.less = op.startsWith(QLatin1Char('<'));
        c.orEqual = op.endsWith(QLatin1Char('='));
        c.bound = m.captured(2).toDouble();
        const QString unit = m.captured(3).toLower();
        if (unit.isEmpty()) {
            c.kind = Clause::Kind::Ratio;
            if (c.bound > widgetlimits::kFilterMaxRatio) {
                f.m_error = QObject::tr("%1 is not a ratio to the best: write a runtime with its unit (%2%1ns, "
                                        "%2%1us) or a ratio such as <1.05")
                                .arg(m.captured(2), op);
                f.m_clauses.clear();
                return f;
            }
        } else {
            c.kind = Clause::Kind::Runtime;
            c.bound *= nsPerUnit(unit);
        }
        f.m_clauses.push_back(c);
        rest = rest.mid(m.capturedLength());
    }
    return f;
}

bool ConfigFilter::needsRanks() const {
    return std::any_of(m_clauses.begin(), m_clauses.end(), [](const Clause& c) { return c.kind == Clause::Kind::Top; });
}

bool ConfigFilter::needsRuntimes() const {
    return std::any_of(m_clauses.begin(), m_clauses.end(),
                       [](const Clause& c) { return c.kind == Clause::Kind::Ratio || c.kind == Clause::Kind::Runtime; });
}

bool ConfigFilter::accepts(int64_t config, double runtimeNs, double ratio, int64_t rank) const {
    for (const Clause& c : m_clauses) {
        double v = 0;
        switch (c.kind) {
            case Clause::Kind::Config:
                if (config != c.n) return false;
                continue;
            case Clause::Kind::Top:
                if (rank < 1 || rank > c.n) return false;
                continue;
            case Clause::Kind::Ratio: v = ratio; break;
            case Clause::Kind::Runtime: v = runtimeNs; break;
        }
        const bool ok = c.less ? (c.orEqual ? v <= c.bound : v < c.bound) : (c.orEqual ? v >= c.bound : v > c.bound);
        if (!ok) return false;
    }
    return true;
}

}  // namespace tpg
