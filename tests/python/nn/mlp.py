# A first PyTorch script, as a new user writes it: an MLP, a forward pass, a loss, the model printed.
import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(0)


class MLP(nn.Module):
    def __init__(self, in_dim, hidden, out_dim):
        super().__init__()
        self.fc1 = nn.Linear(in_dim, hidden)
        self.act = nn.GELU()
        self.drop = nn.Dropout(0.1)
        self.fc2 = nn.Linear(hidden, out_dim)

    def forward(self, x):
        return self.fc2(self.drop(self.act(self.fc1(x))))


model = MLP(4, 8, 3)
print(model)
for name, p in model.named_parameters():
    print(name, p.shape, p.dtype, p.requires_grad)
print("parameters:", sum(p.numel() for p in model.parameters()))

x = torch.randn(5, 4)
logits = model(x)
print(logits.shape, logits.dtype)
loss = F.cross_entropy(logits, torch.tensor([0, 2, 1, 1, 0]))
print(loss.shape, loss.dtype, bool(loss > 0))

# Deterministic weights: the printed values are PyTorch's.
with torch.no_grad():
    model.fc1.weight.copy_(torch.linspace(-1, 1, 32).reshape(8, 4))
    model.fc1.bias.fill_(0.1)
    model.fc2.weight.copy_(torch.linspace(1, -1, 24).reshape(3, 8))
    model.fc2.bias.zero_()
print(model.fc1.bias)
model.eval()
print(model.training, model.fc1.training, model.drop.training)
with torch.no_grad():
    x = torch.tensor([[1.0, 2.0, 3.0, 4.0], [-1.0, 0.0, 1.0, 2.0]])
    out = model(x)
    print(out)
    print(F.softmax(out, dim=1))
    print(F.cross_entropy(out, torch.tensor([0, 2])))
    print(nn.CrossEntropyLoss(reduction="none")(out, torch.tensor([0, 2])))
print(list(model.state_dict().keys()))
print([name for name, _ in model.named_modules()])
print(model.fc2)
print(nn.Sequential(nn.Linear(4, 8), nn.ReLU(), nn.Linear(8, 2)))
