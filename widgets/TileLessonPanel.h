#pragma once

#include <QString>
#include <memory>
#include <optional>
#include <vector>

#include "GuidedLesson.h"
#include "graph/TpuGraph.h"
#include "lesson/TileLesson.h"

namespace tpg {

// "Learn: how tile sizes affect runtime", the tile files' guided lesson, on the open tile file (the
// window opens the sample's when the open file is not one). It starts the what-if editor from the
// compiler's default tile and walks through five steps: select the kernel's output, make its tile
// one lane wide, watch the idle lanes in the Explain tab, make it one tile, compare. Each step says
// what to do with the synthetic TPU's figures; *Show me* does it through the what-if editor (so it
// is undoable); a step is done when the edited configuration shows it, however it was made. A tile
// kernel is tens of nodes: the synthetic TPU evaluates it in microseconds, here on the GUI thread.
class TileLessonPanel : public GuidedLesson {
    Q_OBJECT
public:
    enum class Step { Select, Narrow, WatchLanes, OneTile, Compare };
    static constexpr int kSteps = 5;

    explicit TileLessonPanel(WhatIfPanel* whatIf, QWidget* parent = nullptr);

    void showMe() override;
    Step step() const { return static_cast<Step>(m_step); }
    bool stepDone() const override;
    const std::optional<lesson::TileLesson>& scenario() const { return m_scenario; }
    QString titleText() const override;
    QString statusText() const override;

protected:
    void plan() override;
    void check() override;
    void stop() override;
    void stepEntered() override;
    QString stepBody() const override;

private:
    QString selectText() const;
    QString narrowText() const;
    QString watchText() const;
    QString oneTileText() const;
    QString compareText() const;
    QString configurationLine(const QString& name, const TimedRow& c) const;
    QString tileText(const std::vector<float>& row) const;  // "[1,128,32,16]"
    int64_t laneTile(const std::vector<float>& row) const;
    bool narrowed(const TimedRow& c) const;
    QString predictedLine() const;  // the model's figure for the edited configuration, or ""

    std::optional<lesson::TileLesson> m_scenario;
    std::optional<TimedRow> m_now;              // the edited configuration
    std::optional<TimedRow> m_narrow, m_whole;  // what the class made at steps 2 and 4
};

}  // namespace tpg
