"""The discrete-diffusion core that cam, rlsa and glns share: penalised energies on {0,1}^N with
their gradients and flip gains (energies), graph batches (batch), the flip-rate CTMC sampler
(sampler), decoders from soft marginals to feasible solutions (decode, inference), pacing steps into a
deadline (pacing), the polish driver (polish), the anytime sampling loop of cam and rlsa
(anytime_sampling), and the policy layers the CAM and GLNS networks share, in numpy (numpy_layers)
and torch (gnn_layers)."""
