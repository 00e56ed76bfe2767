#pragma once

#include <QString>
#include <memory>
#include <optional>
#include <vector>

#include "GuidedLesson.h"
#include "graph/TpuGraph.h"
#include "lesson/LayoutLesson.h"

namespace tpg {

class JobRunner;

// "Learn: how layout affects runtime", a guided lesson a teacher can run in front of a class, on
// the open layout file (the window opens the sample's when the open file is not one). It starts
// the what-if editor from the compiler's default configuration and walks through five steps:
// select a convolution, change its output layout, watch the copy the compiler inserts, fix it by
// changing the consumer, compare. Each step says what to do with the synthetic TPU's figures;
// *Show me* does it (through the what-if editor, so it is undoable); the step is done when the
// edited configuration shows it, however it was made. The scenario is found on a worker, and
// every check of an edit runs there too (newest wins).
class LessonPanel : public GuidedLesson {
    Q_OBJECT
public:
    enum class Step { Select, ChangeOutput, WatchCopy, FixConsumer, Compare };
    static constexpr int kSteps = 5;

    explicit LessonPanel(WhatIfPanel* whatIf, QWidget* parent = nullptr);
    ~LessonPanel() override;

    void showMe() override;

    // The worker's answers (public for the queued signals' metatypes).
    struct Plan {
        std::optional<lesson::LayoutLesson> scenario;
        QString start;  // what the lesson starts from, in words
        std::shared_ptr<const synth::TpuCostModel> tpu;
    };

    Step step() const { return static_cast<Step>(m_step); }
    bool stepDone() const override;
    const std::optional<lesson::LayoutLesson>& scenario() const { return m_scenario; }
    QString titleText() const override;
    QString statusText() const override;

protected:
    void plan() override;
    void check() override;
    void stop() override;
    void stepEntered() override;
    QString stepBody() const override;

private:
    void onPlanned(const Plan& plan);
    QString watchText() const;
    QString compareText() const;
    QString nodeText(int32_t node) const;
    bool scenarioCopyPresent() const;
    void recordProgress();
    bool producerChanged(const std::vector<float>& row) const;
    std::vector<int> arrivingLayout() const;  // what the copy's producer now writes: the consumer's fix

    JobRunner* m_runner;
    std::optional<lesson::LayoutLesson> m_scenario;
    std::optional<TimedRow> m_check;  // the edited configuration the lesson is looking at
    std::optional<TimedRow> m_changed, m_fixed;  // what the class made at steps 2 and 4
    quint64 m_planJob = 0, m_checkJob = 0;
    QString m_start;  // what the lesson starts from, in words
};

}  // namespace tpg
