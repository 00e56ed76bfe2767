#pragma once

// Test support: a file's predictions by the built-in model, computed on `runner` as the app does.
#include <QSignalSpy>
#include <memory>

#include "DefaultModels.h"
#include "FilePredictions.h"
#include "JobRunner.h"

inline std::shared_ptr<const tpg::FilePredictions> predictedFile(tpg::JobRunner& runner, const QString& file,
                                                                const tpg::TpuGraph& g) {
    QSignalSpy done(&runner, &tpg::JobRunner::finished);
    auto shared = std::make_shared<const tpg::TpuGraph>(g);
    runner.submit(QStringLiteral("predict"), [file, shared](tpg::JobControl& control) {
        return QVariant::fromValue(std::shared_ptr<const tpg::FilePredictions>(
            tpg::predictFile(file, shared, tpg::nn::defaultModel(shared->collection()), control)));
    });
    if (!done.wait(120000)) return nullptr;
    return done.takeFirst().at(1).value<std::shared_ptr<const tpg::FilePredictions>>();
}
