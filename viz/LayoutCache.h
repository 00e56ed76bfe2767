#pragma once

#include <QString>
#include <list>
#include <memory>
#include <utility>

#include "GraphvizLayout.h"
#include "VizLimits.h"

namespace tpg {

// Finished layouts by key (graph identity + view + its parameters), least recently used out.
// GUI thread only.
class LayoutCache {
public:
    explicit LayoutCache(int capacity = vizlimits::kLayoutCacheEntries) : m_capacity(capacity) {}

    static QString key(const QString& graphId, const ViewSpec& spec) {
        return graphId + QLatin1Char('|') + spec.key();
    }

    std::shared_ptr<const LayoutResult> find(const QString& key) {
        for (auto it = m_entries.begin(); it != m_entries.end(); ++it) {
            if (it->first == key) {
                m_entries.splice(m_entries.begin(), m_entries, it);
                return m_entries.front().second;
            }
        }
        return nullptr;
    }

    void insert(const QString& key, std::shared_ptr<const LayoutResult> layout) {
        for (auto it = m_entries.begin(); it != m_entries.end(); ++it) {
            if (it->first == key) {
                m_entries.erase(it);
                break;
            }
        }
        m_entries.emplace_front(key, std::move(layout));
        while (static_cast<int>(m_entries.size()) > m_capacity) m_entries.pop_back();
    }

    void clear() { m_entries.clear(); }
    int size() const { return static_cast<int>(m_entries.size()); }

private:
    int m_capacity;
    std::list<std::pair<QString, std::shared_ptr<const LayoutResult>>> m_entries;
};

}  // namespace tpg
