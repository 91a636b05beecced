"""``F.multi_head_attention_forward`` (what ``nn.MultiheadAttention`` runs) and the mask
canonicalisation shared with the transformer layers. Inputs are sequence-first ``(L, N, E)``;
bool masks mark the positions that may NOT be attended (PyTorch's convention for these modules,
the opposite of ``scaled_dot_product_attention``'s)."""

import math

import torch


def _canonical_mask(mask, mask_name, other_type, other_name, target_type, check_other=True):
    """A float additive mask (``-inf`` where a bool mask is True), or None."""
    if mask is None:
        return None
    if mask.dtype == torch.bool:
        return torch.zeros_like(mask, dtype=target_type).masked_fill(mask, -math.inf)
    if not mask.dtype.is_floating_point:
        raise AssertionError(f"only bool and floating types of {mask_name} are supported")
    return mask


def _none_or_dtype(x):
    if x is None:
        return None
    if isinstance(x, torch.Tensor):
        return x.dtype
    raise RuntimeError("input to _none_or_dtype() must be None or torch.Tensor")


def _check_shapes(query, key, value, key_padding_mask, attn_mask, num_heads):
    """Whether the inputs are batched; raises PyTorch's assertion on mismatched ranks."""
    if query.dim() == 3:
        if key.dim() != 3 or value.dim() != 3:
            raise AssertionError(
                "For batched (3-D) `query`, expected `key` and `value` to be 3-D but found "
                f"{key.dim()}-D and {value.dim()}-D tensors respectively"
            )
        if key_padding_mask is not None and key_padding_mask.dim() != 2:
            raise AssertionError(
                "For batched (3-D) `query`, expected `key_padding_mask` to be `None` or 2-D but found "
                f"{key_padding_mask.dim()}-D tensor instead"
            )
        if attn_mask is not None and attn_mask.dim() not in (2, 3):
            raise AssertionError(
                "For batched (3-D) `query`, expected `attn_mask` to be `None`, 2-D or 3-D but found "
                f"{attn_mask.dim()}-D tensor instead"
            )
        return True
    if query.dim() == 2:
        if key.dim() != 2 or value.dim() != 2:
            raise AssertionError(
                "For unbatched (2-D) `query`, expected `key` and `value` to be 2-D but found "
                f"{key.dim()}-D and {value.dim()}-D tensors respectively"
            )
        if key_padding_mask is not None and key_padding_mask.dim() != 1:
            raise AssertionError(
                "For unbatched (2-D) `query`, expected `key_padding_mask` to be `None` or 1-D but found "
                f"{key_padding_mask.dim()}-D tensor instead"
            )
        if attn_mask is not None and attn_mask.dim() == 3:
            expected = (num_heads, query.shape[0], key.shape[0])
            if tuple(attn_mask.shape) != expected:
                raise AssertionError(f"Expected `attn_mask` shape to be {expected} but got {attn_mask.shape}")
        return False
    raise AssertionError(
        f"query should be unbatched 2D or batched 3D tensor but received {query.dim()}-D query tensor"
    )


def _in_projection(query, key, value, w, b, w_q, w_k, w_v, separate):
    linear = torch.nn.functional.linear
    if not separate and query is key and key is value:
        qkv = linear(query, w, b)
        return qkv.chunk(3, -1)
    if b is None:
        b_q = b_k = b_v = None
    else:
        b_q, b_k, b_v = b.chunk(3)
    if not separate:
        w_q, w_k, w_v = w.chunk(3)
    return linear(query, w_q, b_q), linear(key, w_k, b_k), linear(value, w_v, b_v)


def multi_head_attention_forward(
    query, key, value, embed_dim_to_check, num_heads, in_proj_weight, in_proj_bias, bias_k, bias_v,
    add_zero_attn, dropout_p, out_proj_weight, out_proj_bias, training=True, key_padding_mask=None,
    need_weights=True, attn_mask=None, use_separate_proj_weight=False, q_proj_weight=None, k_proj_weight=None,
    v_proj_weight=None, static_k=None, static_v=None, average_attn_weights=True, is_causal=False,
):
    F = torch.nn.functional
    is_batched = _check_shapes(query, key, value, key_padding_mask, attn_mask, num_heads)
    if not is_batched:
        query = query.unsqueeze(1)
        key = key.unsqueeze(1)
        value = value.unsqueeze(1)
        if key_padding_mask is not None:
            key_padding_mask = key_padding_mask.unsqueeze(0)
    tgt_len, bsz, embed_dim = query.shape
    key_padding_mask = _canonical_mask(key_padding_mask, "key_padding_mask", _none_or_dtype(attn_mask),
                                       "attn_mask", query.dtype)
    if is_causal and attn_mask is None:
        raise RuntimeError(
            "Need attn_mask if specifying the is_causal hint. You may use the Transformer module method "
            "`generate_square_subsequent_mask` to create this mask."
        )
    if is_causal and key_padding_mask is None and not need_weights:
        # The mask is the causal one: scaled_dot_product_attention builds it from is_causal.
        attn_mask = None
    else:
        attn_mask = _canonical_mask(attn_mask, "attn_mask", None, "", query.dtype, False)
        if key_padding_mask is not None:
            is_causal = False
    if embed_dim != embed_dim_to_check:
        raise AssertionError(f"was expecting embedding dimension of {embed_dim_to_check}, but got {embed_dim}")
    head_dim = embed_dim // num_heads
    if head_dim * num_heads != embed_dim:
        raise AssertionError(f"embed_dim {embed_dim} not divisible by num_heads {num_heads}")
    q, k, v = _in_projection(query, key, value, in_proj_weight, in_proj_bias, q_proj_weight, k_proj_weight,
                             v_proj_weight, use_separate_proj_weight)
    if attn_mask is not None:
        if attn_mask.dim() == 2:
            if tuple(attn_mask.shape) != (tgt_len, key.shape[0]):
                raise RuntimeError(f"The shape of the 2D attn_mask is {attn_mask.shape}, but should be "
                                   f"{(tgt_len, key.shape[0])}.")
            attn_mask = attn_mask.unsqueeze(0)
        elif tuple(attn_mask.shape) != (bsz * num_heads, tgt_len, key.shape[0]):
            raise RuntimeError(f"The shape of the 3D attn_mask is {attn_mask.shape}, but should be "
                               f"{(bsz * num_heads, tgt_len, key.shape[0])}.")
    if bias_k is not None and bias_v is not None:
        k = torch.cat([k, bias_k.expand(1, bsz, embed_dim)])
        v = torch.cat([v, bias_v.expand(1, bsz, embed_dim)])
        if attn_mask is not None:
            attn_mask = F.pad(attn_mask, (0, 1))
        if key_padding_mask is not None:
            key_padding_mask = F.pad(key_padding_mask, (0, 1))
    q = q.reshape(tgt_len, bsz * num_heads, head_dim).transpose(0, 1)
    k = k.reshape(k.shape[0], bsz * num_heads, head_dim).transpose(0, 1) if static_k is None else static_k
    v = v.reshape(v.shape[0], bsz * num_heads, head_dim).transpose(0, 1) if static_v is None else static_v
    if add_zero_attn:
        zeros = torch.zeros((bsz * num_heads, 1, head_dim), dtype=k.dtype)
        k = torch.cat([k, zeros], 1)
        v = torch.cat([v, zeros], 1)
        if attn_mask is not None:
            attn_mask = F.pad(attn_mask, (0, 1))
        if key_padding_mask is not None:
            key_padding_mask = F.pad(key_padding_mask, (0, 1))
    src_len = k.shape[1]
    if key_padding_mask is not None:
        if tuple(key_padding_mask.shape) != (bsz, src_len):
            raise AssertionError(f"expecting key_padding_mask shape of {(bsz, src_len)}, but got "
                                 f"{key_padding_mask.shape}")
        kpm = key_padding_mask.reshape(bsz, 1, 1, src_len).expand(bsz, num_heads, 1, src_len)
        kpm = kpm.reshape(bsz * num_heads, 1, src_len)
        attn_mask = kpm if attn_mask is None else attn_mask + kpm
    if not training:
        dropout_p = 0.0
    if need_weights:
        scores = torch.bmm(q * math.sqrt(1.0 / head_dim), k.transpose(-2, -1))
        if attn_mask is not None:
            scores = attn_mask + scores
        weights = torch.softmax(scores, -1)
        if dropout_p > 0.0:
            weights = F.dropout(weights, dropout_p)
        out = torch.bmm(weights, v).transpose(0, 1).reshape(tgt_len * bsz, embed_dim)
        out = F.linear(out, out_proj_weight, out_proj_bias).reshape(tgt_len, bsz, -1)
        weights = weights.reshape(bsz, num_heads, tgt_len, src_len)
        if average_attn_weights:
            weights = weights.mean(1)
        if not is_batched:
            return out.squeeze(1), weights.squeeze(0)
        return out, weights
    if attn_mask is not None:
        if attn_mask.shape[0] == 1 and attn_mask.dim() == 3:
            attn_mask = attn_mask.unsqueeze(0)
        else:
            attn_mask = attn_mask.reshape(bsz, num_heads, -1, src_len)
    q = q.reshape(bsz, num_heads, tgt_len, head_dim)
    k = k.reshape(bsz, num_heads, src_len, head_dim)
    v = v.reshape(bsz, num_heads, src_len, head_dim)
    out = F.scaled_dot_product_attention(q, k, v, attn_mask, dropout_p, is_causal)
    out = out.permute(2, 0, 1, 3).reshape(bsz * tgt_len, embed_dim)
    out = F.linear(out, out_proj_weight, out_proj_bias).reshape(tgt_len, bsz, -1)
    if not is_batched:
        out = out.squeeze(1)
    return out, None
