from reqconn.connector import ReqOffloadConnector, SaveSpec


class Worker:
    def __init__(self, model, num_blocks, block_numel):
        self.model = model
        self.connector = ReqOffloadConnector(num_blocks, block_numel)

    def execute_model(self, batch, finished_reqs):
        out = self.model(batch, self.connector.gpu_kv)
        for req_id, block_ids in finished_reqs.items():
            self.connector.save_kv_layer(SaveSpec(req_id, block_ids))
        self.connector.wait_for_save()
        return out, self.connector.get_finished()
