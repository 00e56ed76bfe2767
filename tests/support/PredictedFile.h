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

// The predictions that rank `unranked` (one synthetic TPU with it), as the model worker hands them
// over once the file is scored.
inline std::shared_ptr<tpg::FilePredictions> rankedPredictions(
    const QString& file, const QString& modelName,
    const std::shared_ptr<tpg::whatif::WhatIfPredictor>& unranked) {
    auto predictions = std::make_shared<tpg::FilePredictions>();
    predictions->file = file;
    predictions->modelName = modelName;
    predictions->predictor = unranked->ranked();
    return predictions;
}
