from __future__ import annotations

import logging
import time

import torch
import torch.nn as nn

from .config import TrainArgs
from .meters import AverageMeter, accuracy
from .prefetch import data_prefetcher

log = logging.getLogger(__name__)


def train_one_epoch(
    train_loader,
    model: nn.Module,
    criterion: nn.Module,
    optimizer: torch.optim.Optimizer,
    epoch: int,
    args: TrainArgs,
) -> float:
    batch_time = AverageMeter("Time", ":6.3f")
    losses = AverageMeter("Loss", ":.4e")
    top1 = AverageMeter("Acc@1", ":6.2f")
    # [loss, top1] of the last logged iteration
    stats_host = torch.empty(2, dtype=torch.float32, pin_memory=True)

    model.train()
    prefetcher = data_prefetcher(train_loader, args)
    input, target = prefetcher.next()
    i = 0
    end = time.time()
    while input is not None:
        i += 1
        output = model(input)
        loss = criterion(output, target)

        optimizer.zero_grad(set_to_none=True)
        loss.backward()
        optimizer.step()

        if i % args.print_freq == 0:
            (prec1,) = accuracy(output.detach(), target, topk=(1,))
            stats_host.copy_(torch.stack([loss.detach().float(), prec1]), non_blocking=True)
            # Also makes batch_time measure GPU time rather than launch time.
            torch.cuda.synchronize()
            loss_val, prec1_val = stats_host.tolist()
            losses.update(loss_val, input.size(0))
            top1.update(prec1_val, input.size(0))
            batch_time.update((time.time() - end) / args.print_freq)
            end = time.time()
            log.info("Epoch: [%d][%d/%d]\t%s\t%s\t%s", epoch, i, len(train_loader), batch_time, losses, top1)

        input, target = prefetcher.next()
    return top1.avg
