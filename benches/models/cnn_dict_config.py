"""A VGG-style CNN built from a dict config ("M" for max-pool), BatchNorm2d, Dropout (eval
mode), AdaptiveAvgPool2d and an nn.Sequential classifier."""
import torch
import torch.nn as nn

CFG = {"features": [16, "M", 32, "M", 64], "n_classes": 10, "dropout": 0.5}


def make_features(spec, c_in=3):
    layers = []
    for v in spec:
        if v == "M":
            layers.append(nn.MaxPool2d(kernel_size=2, stride=2))
        else:
            layers += [nn.Conv2d(c_in, v, kernel_size=3, padding=1), nn.BatchNorm2d(v), nn.ReLU(inplace=True)]
            c_in = v
    return nn.Sequential(*layers), c_in


class VGGish(nn.Module):
    def __init__(self, cfg):
        super().__init__()
        self.features, c = make_features(cfg["features"])
        self.pool = nn.AdaptiveAvgPool2d((1, 1))
        self.classifier = nn.Sequential(nn.Dropout(cfg["dropout"]), nn.Linear(c, cfg["n_classes"]))

    def forward(self, x):
        x = self.pool(self.features(x))
        return self.classifier(torch.flatten(x, 1))


def build(small=False):
    cfg = dict(CFG, features=[4, "M", 8]) if small else CFG
    x = torch.randn(2, 3, 8, 8) if small else torch.randn(8, 3, 32, 32)
    return VGGish(cfg).eval(), (x,)


def main():
    from _suite import check_model

    check_model(build, "cnn_dict_config")


if __name__ == "__main__":
    main()
